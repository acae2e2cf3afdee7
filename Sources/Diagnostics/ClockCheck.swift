import ApplianceBase
import Foundation
import SystemCalls

/// Check 6: the wall clock, which dates every clip. A board without a real-time clock starts at 1970 (or, under
/// systemd, at the time it last shut down) until NTP sets it, so the check asks two things: is the date
/// plausible at all, and does the kernel say a time service keeps it in step.
enum ClockCheck {
    static let name = "clock"

    /// The earliest date this program can truly run at: 2026-11-01, the month its first line was written.
    /// A compile-time build date would be tighter, but SwiftPM has no __DATE__ and the Debian package must build
    /// reproducibly (no build time baked in); a fixed floor catches what matters: 1970 and a board's stale
    /// default date. Raise it now and then; it must never be later than a real release date.
    static let floor = Date(timeIntervalSince1970: 1_793_491_200)  // 2026-11-01T00:00:00Z

    static func run(now: Date = Date()) -> DoctorCheck {
        judge(
            now: now, kernelState: try? LinuxQueries.clockState(),
            hasRTC: FileManager.default.fileExists(atPath: "/sys/class/rtc/rtc0"))
    }

    /// `kernelState`: adjtimex's answer (5 = TIME_ERROR, not synchronised); nil when it could not be asked.
    static func judge(now: Date, kernelState: Int32?, hasRTC: Bool) -> DoctorCheck {
        let shown = format(now)
        let rtc = hasRTC ? "an RTC is fitted (/sys/class/rtc/rtc0)" : "no RTC (/sys/class/rtc/rtc0 absent)"
        let ntpFix = "enable NTP (timedatectl set-ntp true, systemd-timesyncd)" + (hasRTC ? "" : " or fit an RTC")
        if now < floor {
            return .fail(
                name,
                """
                the clock says \(shown), before this version existed (\(format(floor))): clip dates will be wrong; \
                \(rtc)
                """,
                fix: ntpFix)
        }
        switch kernelState {
        case BootClock.timeError?:
            return .warn(
                name, "\(shown), but the kernel says the clock is not synchronised (no NTP sync yet); \(rtc)",
                fix: ntpFix + ", and wait for the first sync (timedatectl shows it)")
        case nil:
            return .warn(name, "\(shown); the kernel's sync state is unknown (adjtimex failed); \(rtc)", fix: ntpFix)
        default:
            return .pass(name, "\(shown), synchronised; \(rtc)")
        }
    }

    /// "2026-11-22 20:38:02 UTC"
    static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss 'UTC'"
        return formatter.string(from: date)
    }
}
