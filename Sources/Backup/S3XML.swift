import Foundation

/// The few elements the backup reads from S3's small XML answers (an upload id, an error's code, a list of parts),
/// by name: the answers are flat and generated, so no parser is needed for them.
enum S3XML {
    /// The text of the first `<tag>` in `xml`, entities decoded.
    static func value(_ tag: String, in xml: some StringProtocol) -> String? {
        guard let open = xml.range(of: "<\(tag)>"),
            let close = xml.range(of: "</\(tag)>", range: open.upperBound..<xml.endIndex)
        else {
            return nil
        }
        return decode(String(xml[open.upperBound..<close.lowerBound]))
    }

    /// The inside of every `<tag>…</tag>`, in order.
    static func elements(_ tag: String, in xml: String) -> [Substring] {
        var result: [Substring] = []
        var rest = xml[...]
        while let open = rest.range(of: "<\(tag)>"),
            let close = rest.range(of: "</\(tag)>", range: open.upperBound..<rest.endIndex)
        {
            result.append(rest[open.upperBound..<close.lowerBound])
            rest = rest[close.upperBound...]
        }
        return result
    }

    static func decode(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&#34;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
    }

    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// An ETag without its quotes, lower-cased.
    static func etag(_ text: String?) -> String? {
        text.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")).lowercased() }
    }
}
