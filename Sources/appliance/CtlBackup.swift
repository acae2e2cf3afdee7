import ApplianceApp
import ApplianceProtocol
import ArgumentParser
import Foundation

struct Backup: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "WebDAV backup: status and retry.", subcommands: [BackupStatusCommand.self, BackupRetry.self])
    @OptionGroup var options: CtlOptions
}

struct BackupStatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status", abstract: "Queue counts, current upload, last error, next retry.")
    @OptionGroup var options: CtlOptions

    func run() {
        options.perform(.backupStatus) { (r: BackupStatus) in
            guard r.enabled else { return "backup: off ([backup] url is empty)" }
            let c = r.counts
            var lines = [
                "backup: \(r.url)\(r.onlyLocked ? " (locked clips only)" : "")",
                "queue: \(c.pending) pending, \(c.running) running, \(c.done) done, \(c.failed) failed",
            ]
            if r.paused { lines.append("PAUSED: \(r.pauseReason ?? "")") }
            if let current = r.current {
                let percent = current.bytesDone * 100 / max(1, current.bytesTotal)
                lines.append(
                    """
                    uploading \(current.id): \(percent)% of \(formatSize(current.bytesTotal)) at \
                    \(String(format: "%.0f", current.rateKbps)) kbit/s
                    """
                )
            }
            if let error = r.lastError { lines.append("last error: \(error)") }
            if let next = r.nextRetryAt { lines.append("next retry: \(localDate(next))") }
            return lines.joined(separator: "\n")
        }
    }
}

struct BackupRetry: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Resume a paused queue and retry failed uploads now.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "Only this recording (id or unique prefix).") var id: String?

    func run() {
        options.perform(.backupRetry(id: id)) { (r: RetryResult) in "requeued \(r.requeued) job(s)" }
    }
}
