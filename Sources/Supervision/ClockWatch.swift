import ApplianceBase
import ApplianceProtocol
import AsyncAlgorithms
import Foundation
import Logging
import MediaLibrary
import ServiceLifecycle

/// Watches the wall clock against the boot clock (once a second, and whenever asked: `settle`). A jump — a clock set
/// by hand, the first NTP sync of a board that booted without a clock battery, a wrong RTC — is logged, announced
/// (`clock_jumped`), shown by status, and what this boot recorded before it is dated again by it (`Library.redate`),
/// so that its age is its real age: retention never deletes a clip for an age it got from a jump. Recordings are
/// timed by the pipeline's clock and never by the wall clock, so a jump cuts nothing.
package final class ClockWatch: Service, Sendable, CustomStringConvertible {
    package var description: String { "ClockWatch" }
    private let library: Library
    private let events: EventHub
    private let logger: Logger
    private let state = Locked<(detector: ClockJumpDetector, status: ClockStatus)>(
        (ClockJumpDetector(), ClockStatus(synchronized: false)))
    /// The handling of the jump last seen, while it goes on: a `settle` that comes meanwhile waits for it.
    private let handling = Locked<OneShot<Bool>?>(nil)
    package static let interval: Duration = .seconds(1)

    package init(library: Library, events: EventHub, logger: Logger) {
        (self.library, self.events, self.logger) = (library, events, logger)
        state.withLock { $0.status.synchronized = BootClock.synchronized }
    }

    package var status: ClockStatus {
        state.withLock { s in
            var status = s.status
            status.synchronized = BootClock.synchronized
            return status
        }
    }

    /// A watch that has already dated again what needed it (`reconcile`).
    package static func reconciled(library: Library, events: EventHub, logger: Logger) async -> ClockWatch {
        let watch = ClockWatch(library: library, events: events, logger: logger)
        await watch.reconcile()
        return watch
    }

    /// At start: rows of this boot that an earlier run wrote before the clock jumped (while no daemon watched) are
    /// dated again now; then the watch starts from the clock as it is.
    package func reconcile() async {
        let offset = BootClock.offsetMs
        _ = state.withLock { $0.detector.observe(offsetMs: offset) }
        do {
            let moved = try await library.redate(offsetMs: offset)
            if !moved.isEmpty {
                logger.notice(
                    """
                    dated again by the clock as it is now: \(moved.recordings) clips and \(moved.activities) \
                    activities recorded earlier in this boot (the clock jumped while the daemon was not running)
                    """
                )
            }
        } catch {
            logger.error("could not date this boot's clips again: \(error)")
        }
    }

    package func run() async throws {
        for await _ in AsyncTimerSequence(interval: Self.interval, clock: .continuous).cancelOnGracefulShutdown() {
            await settle()
        }
    }

    /// Looks at the clock now; a jump is handled before this returns (retention calls it before judging ages), also
    /// one that another look found a moment ago.
    package func settle() async {
        let now = Date()
        let seen = state.withLock { $0.detector.observe(offsetMs: BootClock.offsetMs) }
        guard let jump = seen else {
            if let inFlight = handling.withLock({ $0 }) { _ = await inFlight.wait(timeout: .seconds(30)) }
            return
        }
        let done = OneShot<Bool>()
        handling.withLock { $0 = done }
        await handle(jumpMs: jump, now: now)
        done.fire(true)
        handling.withLock { if $0 === done { $0 = nil } }
    }

    private func handle(jumpMs: Int64, now: Date) async {
        var record = ClockJump(
            jumpS: Double(jumpMs) / 1000, from: now.addingTimeInterval(-Double(jumpMs) / 1000), to: now)
        do {
            let moved = try await library.redate(offsetMs: BootClock.offsetMs)
            (record.redatedRecordings, record.redatedActivities) = (moved.recordings, moved.activities)
            try await library.followJump(byMs: jumpMs)
        } catch {
            logger.error(
                "the clock jumped by \(record.jumpWords), and this boot's clips could not be dated again: \(error)")
        }
        state.withLock { s in
            s.status.jumps += 1
            s.status.lastJump = record
        }
        logger.warning(
            """
            the wall clock jumped by \(record.jumpWords) (\(Timestamps.iso(record.from)) → \
            \(Timestamps.iso(record.to))); dated again: \(record.redatedRecordings) clips and \
            \(record.redatedActivities) activities recorded earlier in this boot
            """,
            metadata: ["synchronized": "\(BootClock.synchronized)"])
        events.publish(.clockJumped(record))
    }
}
