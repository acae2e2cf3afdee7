import ApplianceProtocol
import Foundation
import ApplianceBase

/// What a failed job means for the queue, and how long to wait before the next try.
package enum BackupPolicy {
    package enum Verdict { case retry(Double?), pause(String), fail }

    static func classify(_ error: Error) -> Verdict {
        switch error {
        case WebDAVError.status(let code, _, _, let retryAfter):
            switch code {
            case 401, 403: return .pause("the server refused the credentials (HTTP \(code)); fix backup.username or the password file (a change to it is picked up by itself), or run `appliance ctl backup retry`")
            case 507: return .pause("the server is out of storage (HTTP 507); free space, then run `appliance ctl backup retry`")
            case 408, 423, 425, 429, 500...599: return .retry(retryAfter)
            default: return .fail
            }
        case WebDAVError.transport, WebDAVError.verification: return .retry(nil)
        case is LocalFileMissing: return .fail
        default: return .retry(nil)
        }
    }

    /// `base` × 2^attempts, at most 5 minutes, jittered to 50–100 %; at least what Retry-After asked for.
    package static func delay(attempts: Int, base: Double, retryAfter: Double?) -> Double {
        let exponential = base * pow(2, Double(min(attempts, 12)))
        return max(min(exponential, 300) * Double.random(in: 0.5...1.0), retryAfter ?? 0)
    }

    /// The URL without credentials, for status, events and logs.
    package static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.user = nil
        components.password = nil
        return components.string ?? url
    }
}

/// The recording's file is gone from the disk: nothing to upload until it is back (`backup retry` then).
struct LocalFileMissing: Error, CustomStringConvertible {
    package var path: String
    package var description: String { "local file missing: \(path)" }
}

/// Publishes upload progress at most once a second, from whatever thread the upload stream runs on.
final class ProgressReporter: Sendable {
    package let id: String
    package let total: Int64
    package let started: ContinuousClock.Instant
    package let events: EventHub
    package let current: Locked<BackupProgress?>
    private let lastReport = Locked(ContinuousClock.now - .seconds(2))

    package init(id: String, total: Int64, started: ContinuousClock.Instant, events: EventHub, current: Locked<BackupProgress?>) {
        self.id = id
        self.total = total
        self.started = started
        self.events = events
        self.current = current
    }

    package func report(_ sent: Int64) {
        let now = ContinuousClock.now
        let due = lastReport.withLock { last -> Bool in
            guard now - last >= .seconds(1) || sent == total else { return false }
            last = now
            return true
        }
        guard due else { return }
        let seconds = (now - started) / .seconds(1)
        let rate = seconds > 0 ? Double(sent) * 8 / 1000 / seconds : 0
        let progress = BackupProgress(id: id, bytesDone: sent, bytesTotal: total, rateKbps: rate.rounded())
        current.withLock { if $0?.id == id { $0 = progress } }
        events.publish(.backupProgress(progress))
    }
}
