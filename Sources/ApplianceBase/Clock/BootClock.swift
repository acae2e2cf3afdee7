import Foundation
import SystemCalls

#if canImport(Glibc)
    import Glibc
#endif

/// The clock that never jumps: milliseconds since this boot (CLOCK_BOOTTIME: it counts a suspend too), and which
/// boot it is. A row stamped with both can be dated again by the wall clock as it is now (`Library.redate`), however
/// that clock was set when the row was written. The wall clock only labels; ages and durations come from here.
package enum BootClock {
    /// /proc/sys/kernel/random/boot_id: a new one at every boot.
    package static let bootID: String =
        (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""

    /// Milliseconds since the boot.
    package static var nowMs: Int64 {
        var time = timespec()
        clock_gettime(CLOCK_BOOTTIME, &time)
        return Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000
    }

    /// The wall clock less the boot clock, in milliseconds: when this boot began, by the wall clock now. Constant
    /// while the wall clock runs true; a jump of the wall clock moves it by the jump.
    package static var offsetMs: Int64 {
        let boot = nowMs
        let wall = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        return wall - boot
    }

    /// adjtimex's TIME_ERROR: what the kernel answers while STA_UNSYNC is set (no time service has disciplined the
    /// clock, or it lost sync).
    package static let timeError: Int32 = 5

    /// Whether the kernel says the wall clock is synchronised (NTP, chrony, timesyncd set this): adjtimex's answer
    /// is not TIME_ERROR.
    package static var synchronized: Bool {
        (try? LinuxQueries.clockState()).map { $0 != timeError } ?? false
    }
}
