import ApplianceBase
import ApplianceProtocol
import Foundation
import XCTest

/// A board without a clock battery boots with a wrong clock and jumps at its first NTP sync (issue 44). In the VM lab
/// the guest's own clock is moved with `date -s` (the host's is not touched): a loop recording that began two days
/// "ago" by a clock two days behind goes on across a jump of +2 days with `retention_days = 1`, and nothing is
/// deleted for an age it got from the jump; then the clock goes back 3 hours, and every clip still decodes and the
/// timeline stays in order. The test's own waits run on the monotonic clock (socket timeouts), never on the wall.
final class LabClockTests: XCTestCase {
    /// The real time now, from the monotonic clock and one reading taken before the guest's clock was touched.
    private struct RealTime {
        let wall = Date()
        let anchor = ContinuousClock.now
        var now: Date {
            let elapsed = ContinuousClock.now - anchor
            return wall.addingTimeInterval(
                Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
    }

    private func setClock(_ date: Date) throws {
        try Lab.run("date", ["-s", "@\(Int(date.timeIntervalSince1970))"])
    }

    private func segment(_ events: TypedEvents) throws -> RecordingResult {
        try events.waitFor("segment_closed") {
            if case .segmentClosed(let r) = $0 { return r }
            return nil
        }
    }

    func testAJumpForwardDeletesNothingAndAJumpBackKeepsTheTimelineInOrder() throws {
        try Lab.require()
        let real = RealTime()
        try setClock(real.now.addingTimeInterval(-172_800))
        defer { try? setClock(real.now) }
        // The other lab tests' video (320x180@10): their encoder choice is this daemon's too, not a trial of its own
        // (10 to 20 s under TCG).
        let daemon = try DaemonProcess(
            extra: LabCameraTests.config(width: 320, height: 180, framerate: 10) + """

                [recording]
                autostart = true
                segment_s = 4.0
                [storage]
                retention_days = 1
                event_keep_days = 1
                """, root: Lab.scratch)
        try daemon.start(timeout: 180)
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            let events = try TypedEvents(daemon, timeout: 90)
            let before = [try segment(events), try segment(events)]

            // The first sync: +2 days. The clips of this boot move with the clock; retention, woken by the next
            // segments, finds none older than a day.
            try setClock(real.now)
            let forward = try events.waitFor("clock_jumped") {
                if case .clockJumped(let j) = $0 { return j }
                return nil
            }
            XCTAssertEqual(forward.jumpS, 172_800, accuracy: 5)
            XCTAssertGreaterThanOrEqual(
                forward.redatedRecordings, 3, "the two closed segments and the one being written")
            let across = try segment(events)
            let after = try segment(events)
            let status = try daemon.status()
            XCTAssertEqual(status.clock?.jumps, 1)
            XCTAssertEqual(status.clock?.lastJump?.jumpS ?? 0, 172_800, accuracy: 5)

            // A jump back: 3 hours.
            try setClock(real.now.addingTimeInterval(-10_800))
            let back = try events.waitFor("clock_jumped") {
                if case .clockJumped(let j) = $0 { return j }
                return nil
            }
            XCTAssertEqual(back.jumpS, -10_800, accuracy: 5)
            let last = [try segment(events), try segment(events)]
            _ = try daemon.recordStop()

            // Nothing was deleted; every clip decodes, none is a day old by the clock now, and the segments follow
            // one another on the timeline: each starts where the one before ended, none overlaps.
            let clips = try daemon.list(group: before[0].id, perPage: 100).items.sorted {
                ($0.segment ?? 0) < ($1.segment ?? 0)
            }
            let closed = before + [across, after] + last
            XCTAssertTrue(
                Set(closed.map(\.id)).isSubset(of: Set(clips.map(\.id))),
                "deleted: \(Set(closed.map(\.id)).subtracting(clips.map(\.id)))")
            XCTAssertFalse(
                daemon.log.contains("reason=retention_days") || daemon.log.contains("retention: deleted"), daemon.log)
            let now = Date()
            for clip in clips {
                XCTAssertEqual(try MediaProbe(clip.path).decodeErrors(), "", clip.path)
                XCTAssertGreaterThan(clip.durationMs ?? 0, 0)
                XCTAssertLessThan(
                    now.timeIntervalSince(clip.createdAt), 3_600, "dated by the clock as it is now: \(clip.createdAt)")
            }
            for (earlier, later) in zip(clips, clips.dropFirst()) {
                let end = try XCTUnwrap(earlier.endedAt)
                XCTAssertEqual(
                    later.createdAt.timeIntervalSince(end), 0, accuracy: 1.5,
                    """
                    segment \(later.segment ?? 0) starts where \(earlier.segment ?? 0) ended: \(end) → \
                    \(later.createdAt)
                    """
                )
            }
            // The day's timeline (as the dashboard asks for it): the drive is one span, all its segments in it.
            guard
                case .timeline(let timeline) = try daemon.perform(
                    .timeline(from: now.addingTimeInterval(-3_600), to: now.addingTimeInterval(60)))
            else {
                return XCTFail("timeline: unexpected result")
            }
            XCTAssertEqual(
                timeline.spans.map(\.recordings), [clips.count], "one span across both jumps: \(timeline.spans)")
            print(
                """
                LabClockTests: \(clips.count) segments; jumps \(forward.jumpWords) (\(forward.redatedRecordings) \
                clips dated again), \(back.jumpWords) (\(back.redatedRecordings))
                """
            )
        }
    }
}
