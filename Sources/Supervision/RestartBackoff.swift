import ApplianceBase
import Foundation
import MediaLibrary

/// A growing delay before a daemon in a crash loop opens its devices again. systemd ≥ 254 grows its own restart
/// delay (the unit's drop-in: RestartSteps=, RestartMaxDelaySec=); Debian 12's systemd 252 ignores those keys and
/// restarts every RestartSec = 2 s until the start limit, hammering a camera that may be what crashes it. The daemon
/// knows its own history (`DaemonRuns`), so it waits here: never after a single crash or a power cut (a dashcam must
/// record at once), only from the second unclean exit in a row with the previous start minutes ago at most, and only
/// under a service manager (`NOTIFY_SOCKET`): a person or a script restarting the daemon needs no pacing.
package enum RestartBackoff {
    /// A previous start longer ago than this is not a crash loop (a drive that ran for an hour, a power cut).
    static let loopWindow: TimeInterval = 600
    package static let longest: Duration = .seconds(60)

    /// 2 s after the second unclean exit in a row, doubling up to a minute; nil: start at once.
    package static func delay(for runs: DaemonRuns, now: Date = Date()) -> Duration? {
        guard runs.consecutiveUnclean >= 2, let previous = runs.previousStart,
            now.timeIntervalSince(previous) < loopWindow
        else {
            return nil
        }
        let steps = min(runs.consecutiveUnclean - 2, 5)
        return min(.seconds(2 << steps), longest)
    }
}
