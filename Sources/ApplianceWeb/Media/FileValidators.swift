import Foundation

/// A file's validators: a strong ETag made of its size and modification time (nanoseconds), and Last-Modified.
/// Clips are written once and renamed into place, so a change of either means a different file.
struct FileValidators: Equatable, Sendable {
    let size: Int64
    let modified: Date
    let etag: String

    init(size: Int64, modifiedNanoseconds: Int64) {
        self.size = size
        modified = Date(timeIntervalSince1970: Double(modifiedNanoseconds / 1_000_000_000))
        etag = "\"\(String(size, radix: 16))-\(String(modifiedNanoseconds, radix: 16))\""
    }

    /// Validators of bytes that are not one file (the range video): its own tag, and a time to the second.
    init(size: Int64, modified: Date, etag: String) {
        self.size = size
        self.modified = Date(timeIntervalSince1970: modified.timeIntervalSince1970.rounded(.down))
        self.etag = etag
    }

    var lastModified: String { HTTPDate.format(modified) }

    /// `If-None-Match` (wins when present) or `If-Modified-Since` says the client's copy is current: 304.
    func notModified(ifNoneMatch: String?, ifModifiedSince: String?) -> Bool {
        if let ifNoneMatch {
            return ifNoneMatch.split(separator: ",").contains { tag in
                let t = tag.trimmingCharacters(in: .whitespaces)
                return t == "*" || Self.weakless(t) == Self.weakless(etag)  // weak comparison (RFC 9110 §13.1.2)
            }
        }
        if let ifModifiedSince, let since = HTTPDate.parse(ifModifiedSince) { return modified <= since }
        return false
    }

    /// `If-Range`: the Range applies only if the client's validator still names this file (strong comparison; a
    /// date must equal Last-Modified exactly).
    func rangeStillValid(ifRange: String?) -> Bool {
        guard let ifRange = ifRange?.trimmingCharacters(in: .whitespaces) else { return true }
        if ifRange.hasPrefix("\"") { return ifRange == etag }
        if ifRange.hasPrefix("W/") { return false }
        guard let date = HTTPDate.parse(ifRange) else { return false }
        return date == modified
    }

    private static func weakless(_ tag: String) -> String { tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag }
}

/// IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), the only date form HTTP sends; the two obsolete forms are
/// accepted too.
enum HTTPDate {
    private static let formats = [
        "EEE, dd MMM yyyy HH:mm:ss zzz", "EEEE, dd-MMM-yy HH:mm:ss zzz", "EEE MMM d HH:mm:ss yyyy",
    ]

    static func format(_ date: Date) -> String { formatter(formats[0]).string(from: date) }

    static func parse(_ text: String) -> Date? {
        for format in formats { if let date = formatter(format).date(from: text) { return date } }
        return nil
    }

    private static func formatter(_ format: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = format
        return formatter
    }
}
