import ApplianceBase
import ApplianceProtocol
import Foundation

/// What a failed job means for the queue, and how long to wait before the next try.
package enum BackupPolicy {
    package enum Verdict { case retry(Double?), pause(String), fail }

    static func classify(_ error: Error) -> Verdict {
        switch error {
        case RemoteError.status(let code, _, _, let retryAfter):
            switch code {
            case 401, 403:
                return .pause(
                    """
                    the server refused the credentials (HTTP \(code)); fix backup.username or the password file (a \
                    change to it is picked up by itself), or run `appliance ctl backup retry`
                    """
                )
            case 507:
                return .pause(
                    "the server is out of storage (HTTP 507); free space, then run `appliance ctl backup retry`")
            case 408, 423, 425, 429, 500...599: return .retry(retryAfter)
            default: return .fail
            }
        case RemoteError.service(let status, let code, let message, _, let path, let retryAfter):
            return classifyService(status, code: code, message: message, path: path, retryAfter: retryAfter)
        case RemoteError.transport, RemoteError.verification: return .retry(nil)
        case is LocalFileMissing: return .fail
        default: return .retry(nil)
        }
    }

    /// S3's answers: refused keys and a missing bucket pause the queue (one line in `backup status`), throttling
    /// and server errors are retried, a skewed clock too (the next request is signed with the server's time).
    private static func classifyService(_ status: Int, code: String, message: String, path: String, retryAfter: Double?)
        -> Verdict
    {
        switch (status, code) {
        case (403, "InvalidAccessKeyId"), (403, "SignatureDoesNotMatch"), (403, "InvalidToken"), (403, "ExpiredToken"),
            (403, "AccessDenied"), (403, "Forbidden"):
            return .pause(
                """
                the S3 service refused the credentials (HTTP 403 \(code)); fix backup.access_key or the secret key \
                file (a change to it is picked up by itself), or run `appliance ctl backup retry`
                """
            )
        case (_, "NoSuchBucket"):
            return .pause(
                """
                the bucket does not exist (HTTP \(status) NoSuchBucket); create it (the queue goes on by itself \
                once it is there, checked every 5 s) or correct [backup] url
                """
            )
        case (_, "RequestTimeTooSkewed"), (_, "SlowDown"), (_, "RequestTimeout"), (_, "InternalError"), (408, _),
            (429, _), (500...599, _):
            return .retry(retryAfter)
        case (400, "AccessDenied") where message.lowercased().contains("request time"):
            return .retry(retryAfter)  // a store's way of saying RequestTimeTooSkewed (rclone's, for a clock behind)
        default:
            return .fail
        }
    }

    /// The server refused the credentials: a changed password or secret key file may lift the pause.
    static func isRefusedCredentials(_ error: Error) -> Bool {
        switch error {
        case RemoteError.status(let code, _, _, _): code == 401 || code == 403
        case RemoteError.service(403, _, _, _, _, _): true
        default: false
        }
    }

    /// The bucket does not exist: the queue looks for it now and then, and goes on by itself once it is there.
    static func isMissingBucket(_ error: Error) -> Bool {
        if case RemoteError.service(_, "NoSuchBucket", _, _, _, _) = error { return true }
        return false
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

    package init(
        id: String, total: Int64, started: ContinuousClock.Instant, events: EventHub, current: Locked<BackupProgress?>
    ) {
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
