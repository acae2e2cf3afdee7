import ApplianceBase

/// What a `Range` header asks of a file of `size` bytes (RFC 9110 §14): the whole file, one part of it, or
/// nothing it has. Only single `bytes` ranges are honoured; a header the server does not understand (another unit,
/// bad syntax, several ranges) is ignored, which RFC 9110 allows, and the whole file is sent.
enum ByteRange: Equatable, Sendable {
    case whole
    /// First and last byte offsets, inclusive; `first ≤ last < size`.
    case part(first: Int64, last: Int64)
    /// 416 with `Content-Range: bytes */size`.
    case unsatisfiable

    init(header: String?, size: Int64) {
        guard let header else {
            self = .whole
            return
        }
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes=") else {
            self = .whole
            return
        }
        let spec = text.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let start = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let end = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        switch (Self.number(start), Self.number(end)) {
        case (let first?, nil) where end.isEmpty:  // bytes=N-
            self = first < size ? .part(first: first, last: size - 1) : .unsatisfiable
        case (nil, let length?) where start.isEmpty:  // bytes=-N: the last N bytes, the whole file when N exceeds it
            if length == 0 || size == 0 {
                self = .unsatisfiable
            } else {
                self = .part(first: max(0, size - length), last: size - 1)
            }
        case (let first?, let last?) where first <= last:  // bytes=N-M
            self = first < size ? .part(first: first, last: min(last, size - 1)) : .unsatisfiable
        default:
            self = .whole
        }
    }

    /// Decimal digits only (no sign, no spaces inside), at most 18 of them.
    private static func number(_ text: String) -> Int64? {
        guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(text)
    }
}
