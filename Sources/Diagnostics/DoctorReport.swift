import Foundation

/// Everything `appliance doctor` found: one check per line, a summary, and the exit code (1 with any failure).
public struct DoctorReport: Sendable, Encodable {
    public var checks: [DoctorCheck]

    public init(checks: [DoctorCheck]) { self.checks = checks }

    public var passed: Int { checks.count { $0.status == .pass } }
    public var warnings: Int { checks.count { $0.status == .warn } }
    public var failed: Int { checks.count { $0.status == .fail } }
    public var exitCode: Int32 { failed > 0 ? 1 : 0 }

    /// `doctor: 7 passed, 2 warnings, 1 failed`
    public var summary: String {
        "doctor: \(passed) passed, \(warnings) warning\(warnings == 1 ? "" : "s"), \(failed) failed"
    }

    /// The human form: the check lines, then the summary.
    public var text: String { (checks.map(\.line) + [summary]).joined(separator: "\n") }

    /// One JSON object: {"checks": [{name, status, detail, fix}], "passed", "warnings", "failed"}.
    public func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(self) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    private enum CodingKeys: String, CodingKey { case checks, passed, warnings, failed }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(checks, forKey: .checks)
        try container.encode(passed, forKey: .passed)
        try container.encode(warnings, forKey: .warnings)
        try container.encode(failed, forKey: .failed)
    }
}
