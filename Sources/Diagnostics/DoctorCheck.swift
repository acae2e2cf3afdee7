/// One line of `appliance doctor`: what was checked, what was found and, when it is not a pass, what to do.
public struct DoctorCheck: Sendable, Equatable, Encodable {
    public enum Status: String, Sendable, Codable, Comparable {
        case pass, warn, fail

        /// The word that starts the check's line: PASS, WARN or FAIL (all four letters, so the names line up).
        public var label: String { rawValue.uppercased() }

        public static func < (a: Status, b: Status) -> Bool { a.rank < b.rank }
        private var rank: Int { self == .pass ? 0 : self == .warn ? 1 : 2 }
    }

    /// Short and stable, so scripts can grep for it: "camera main", "storage", "backup".
    public var name: String
    public var status: Status
    public var detail: String
    /// What to do about a warning or a failure; nil for a pass.
    public var fix: String?

    public init(name: String, status: Status, detail: String, fix: String? = nil) {
        self.name = name
        self.status = status
        self.detail = detail
        self.fix = status == .pass ? nil : fix
    }

    static func pass(_ name: String, _ detail: String) -> DoctorCheck {
        DoctorCheck(name: name, status: .pass, detail: detail)
    }

    static func warn(_ name: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, status: .warn, detail: detail, fix: fix)
    }

    static func fail(_ name: String, _ detail: String, fix: String) -> DoctorCheck {
        DoctorCheck(name: name, status: .fail, detail: detail, fix: fix)
    }

    /// `PASS  storage: …` / `WARN  camera main: … -- fix: …`, on one line and in ASCII punctuation: doctor is
    /// read on serial consoles and grepped, where a multi-line GStreamer message or an em dash gets in the way.
    public var line: String {
        var text = "\(status.label)  \(name): \(Self.oneLine(detail))"
        if let fix { text += " -- fix: \(Self.oneLine(fix))" }
        return text
    }

    /// Folds newlines and swaps typographic punctuation (from error messages written elsewhere) for ASCII.
    static func oneLine(_ text: String) -> String {
        let replacements: [(String, String)] = [
            ("\u{2014}", "--"), ("\u{2013}", "-"), ("\u{2018}", "'"), ("\u{2019}", "'"),
            ("\u{201C}", "\""), ("\u{201D}", "\""), ("\u{00D7}", "x"), ("\u{2026}", "..."),
        ]
        var result = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
        for (from, to) in replacements { result = result.replacingOccurrences(of: from, with: to) }
        return result
    }

    private enum CodingKeys: String, CodingKey { case name, status, detail, fix }

    /// `fix` is always present in the JSON form: null for a pass.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(status, forKey: .status)
        try container.encode(detail, forKey: .detail)
        try container.encode(fix, forKey: .fix)
    }
}
