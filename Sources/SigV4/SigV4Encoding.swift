import Foundation

/// The canonical forms SigV4 signs: RFC 3986 percent-encoding of everything but the unreserved characters
/// (upper-case hex, slashes kept in a path), the query sorted by encoded name then value, headers lower-cased,
/// trimmed, folded and sorted, with repeated names joined by commas in their order.
public enum SigV4Encoding {
    private static let unreserved = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~".utf8)

    public static func encode(_ text: String, keepSlash: Bool = false) -> String {
        var out = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) || (keepSlash && byte == UInt8(ascii: "/")) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }

    /// The path as signed and sent: each segment encoded; with `normalize`, `.` and `..` resolved and empty segments
    /// dropped (a trailing slash kept).
    static func canonicalPath(_ path: String, normalize: Bool) -> String {
        let absolute = path.hasPrefix("/") ? path : "/" + path
        guard normalize else { return encode(absolute, keepSlash: true) }
        var segments: [Substring] = []
        for segment in absolute.split(separator: "/", omittingEmptySubsequences: true) {
            switch segment {
            case ".": continue
            case "..": _ = segments.popLast()
            default: segments.append(segment)
            }
        }
        let trailing = absolute.count > 1 && absolute.hasSuffix("/") && !segments.isEmpty
        return encode("/" + segments.joined(separator: "/") + (trailing ? "/" : ""), keepSlash: true)
    }

    /// `b=2&a=1` → `a=1&b=2`, each name and value decoded and encoded again; a name without `=` has an empty value.
    static func canonicalQuery(_ query: String) -> String {
        guard !query.isEmpty else { return "" }
        let pairs = query.split(separator: "&", omittingEmptySubsequences: true).map { pair -> (String, String) in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (part: Substring) in part.removingPercentEncoding ?? String(part) }
            return (encode(decode(parts[0])), parts.count > 1 ? encode(decode(parts[1])) : "")
        }
        return pairs.sorted { $0.0 == $1.0 ? $0.1 < $1.1 : $0.0 < $1.0 }.map { "\($0.0)=\($0.1)" }.joined(
            separator: "&")
    }

    /// Lower-case names, sorted; values trimmed with inner runs of whitespace (line folds included) made one space;
    /// a name given more than once has its values joined by commas in the order given.
    static func canonicalHeaders(_ headers: [(name: String, value: String)]) -> [(name: String, value: String)] {
        var merged: [String: [String]] = [:]
        for (name, value) in headers {
            let folded = value.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }).joined(
                separator: " ")
            merged[name.lowercased(), default: []].append(folded)
        }
        return merged.keys.sorted().map { ($0, merged[$0]!.joined(separator: ",")) }
    }
}
