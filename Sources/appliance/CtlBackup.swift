import ApplianceCore
import ArgumentParser
import Foundation

struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "WebDAV backup: status and retry.", subcommands: [BackupStatus.self, BackupRetry.self])
    @OptionGroup var options: CtlOptions
}

struct BackupStatus: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Queue counts, current upload, last error, next retry.")
    @OptionGroup var options: CtlOptions

    func run() {
        options.call("backup.status") { r in
            guard r["enabled"] as? Bool == true else { return "backup: off ([backup] url is empty)" }
            let counts = r["counts"] as? [String: Any] ?? [:]
            var lines = ["backup: \(r["url"] ?? "")\((r["only_locked"] as? Bool) == true ? " (locked clips only)" : "")",
                         "queue: \(counts["pending"] ?? 0) pending, \(counts["running"] ?? 0) running, \(counts["done"] ?? 0) done, \(counts["failed"] ?? 0) failed"]
            if r["paused"] as? Bool == true { lines.append("PAUSED: \(r["pause_reason"] ?? "")") }
            if let current = r["current"] as? [String: Any] {
                let done = (current["bytes_done"] as? Int) ?? 0, total = max(1, (current["bytes_total"] as? Int) ?? 1)
                lines.append("uploading \(current["id"] ?? ""): \(done * 100 / total)% of \(formatSize(total)) at \(String(format: "%.0f", current["rate_kbps"] as? Double ?? 0)) kbit/s")
            }
            if let error = r["last_error"] as? String { lines.append("last error: \(error)") }
            if let next = r["next_retry_at"] as? String { lines.append("next retry: \(localDate(next))") }
            return lines.joined(separator: "\n")
        }
    }
}

struct BackupRetry: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "retry", abstract: "Resume a paused queue and retry failed uploads now.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "Only this recording (id or unique prefix).") var id: String?

    func run() {
        options.call("backup.retry", args: id.map { ["id": $0] } ?? [:]) { r in "requeued \(r["requeued"] ?? 0) job(s)" }
    }
}
