import ApplianceBase
import ApplianceProtocol
import Foundation
import Mp4
import XCTest

@testable import MediaLibrary

/// The wall clock jumping (issue 44): noticed against the boot clock, and this boot's rows dated again by it, so
/// that their age is their real age and the timeline stays in order.
final class ClockTests: XCTestCase {
    func testAJumpIsAMoveOfTheOffsetBeyondTheThresholdBothWays() {
        var detector = ClockJumpDetector()
        XCTAssertNil(detector.observe(offsetMs: 1_000_000), "the first look only sets the base")
        XCTAssertNil(detector.observe(offsetMs: 1_000_003), "NTP's slew: milliseconds")
        XCTAssertNil(detector.observe(offsetMs: 1_001_999))
        XCTAssertEqual(detector.observe(offsetMs: 1_001_999 + 172_800_000), 172_800_000, "+2 days")
        XCTAssertNil(detector.observe(offsetMs: 1_001_999 + 172_800_000), "counted once")
        XCTAssertEqual(detector.observe(offsetMs: 1_001_999 + 172_800_000 - 3_600_000), -3_600_000, "back an hour")
    }

    func testTheBootClockAndTheOffsetAreConsistent() {
        let (before, offset, after) = (BootClock.nowMs, BootClock.offsetMs, BootClock.nowMs)
        XCTAssertGreaterThan(before, 0)
        XCTAssertLessThanOrEqual(before, after)
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        XCTAssertEqual(Double(offset + after), Double(wall), accuracy: 50, "boot clock + offset = the wall clock")
        XCTAssertFalse(BootClock.bootID.isEmpty)
        XCTAssertEqual(ClockJump(jumpS: 172_800, from: Date(), to: Date()).jumpWords, "+2 d 0 h")
        XCTAssertEqual(ClockJump(jumpS: -3_720, from: Date(), to: Date()).jumpWords, "-1 h 2 min")
    }

    private func clip(_ n: Int, at date: Date, state: ApplianceProtocol.Recording.State = .recording)
        -> ApplianceProtocol.Recording
    {
        var row = ApplianceProtocol.Recording(
            id: String(format: "%08x-0000-4000-8000-%012x", n, n), title: "c\(n)", createdAt: date,
            path: "/x/\(n).mp4", state: state)
        row.startedAt = date
        return row
    }

    func testRowsOfThisBootAreDatedAgainByAJumpAndOthersAreNot() async throws {
        let library = try Library.inMemory()
        // Recorded by a clock two days behind (it reads `then`): live rows, stamped with the boot clock.
        let then = Date()
        for n in 0..<3 {
            let row = clip(n, at: then.addingTimeInterval(Double(n) * 5 - 15))
            try await library.insert(row)
            try await library.update(id: row.id) { $0.state = .complete }
        }
        // A clip adopted by recovery (not live: not this boot's to move), from a day before.
        try await library.insert(clip(10, at: then.addingTimeInterval(-86_400), state: .recovered))
        let activity = try await library.insertActivity(
            Activity(
                id: 0, kind: .motion, startedAt: then.addingTimeInterval(-8),
                endedAt: then.addingTimeInterval(-6)))
        // Then the clock is set: it reads two days more than it did. This boot's rows move with it.
        let now = then.addingTimeInterval(172_800)
        let moved = try await library.redate(offsetMs: BootClock.offsetMs + 172_800_000)
        XCTAssertEqual(moved, Library.Redated(recordings: 3, activities: 1))
        let rows = try await library.page(1, perPage: 10).items
        for n in 0..<3 {
            let row = try XCTUnwrap(rows.first { $0.title == "c\(n)" })
            XCTAssertEqual(row.createdAt.timeIntervalSince(now), Double(n) * 5 - 15, accuracy: 0.5, "moved by the jump")
            XCTAssertEqual(row.startedAt!.timeIntervalSince(row.createdAt), 0, accuracy: 0.01, "its start with it")
            XCTAssertEqual(Double(row.redatedMs ?? 0) / 1000, 172_800, accuracy: 0.5)
        }
        XCTAssertEqual(rows.first { $0.title == "c10" }?.createdAt.timeIntervalSince(then) ?? 0, -86_400, accuracy: 0.5)
        XCTAssertNil(rows.first { $0.title == "c10" }?.redatedMs)
        XCTAssertEqual(rows.map(\.title), ["c2", "c1", "c0", "c10"], "the list follows the new dates (newest first)")
        let shown = try await library.activity(id: activity.id)
        XCTAssertEqual(shown?.startedAt.timeIntervalSince(now) ?? 0, -8, accuracy: 0.5)
        XCTAssertEqual(shown?.endedAt?.timeIntervalSince(now) ?? 0, -6, accuracy: 0.5)

        // By the clock as it is now, only the adopted clip is more than a day old; a second look moves nothing.
        let old = try await library.oldest(
            locked: false, backedUp: nil, olderThan: now.addingTimeInterval(-86_400), after: nil, limit: 10)
        XCTAssertEqual(old.0.map(\.id), [clip(10, at: now).id])
        let again = try await library.redate(offsetMs: BootClock.offsetMs + 172_800_000)
        XCTAssertTrue(again.isEmpty)
        let otherBoot = try await library.redate(bootID: "another boot", offsetMs: 0)
        XCTAssertTrue(otherBoot.isEmpty)
    }

    /// A recording that starts, its time read before the clock jumped and its row written after the jump was
    /// handled (the clock watch's re-dating had run and could not see it): the write dates it by the clock as it is
    /// now. Read two days before a +2 d jump, or three hours after a -3 h one; a pre-roll's seconds stay as they are.
    func testARecordingWhoseTimeWasReadBeforeAJumpIsDatedByTheClockAsItIsNow() async throws {
        let library = try Library.inMemory()
        let now = Date()
        try await library.insert(clip(1, at: now.addingTimeInterval(-172_800)))
        try await library.insert(clip(2, at: now.addingTimeInterval(10_800)))
        try await library.insert(clip(3, at: now.addingTimeInterval(-5)))
        let rows = try await library.page(1, perPage: 10).items
        let dated = Dictionary(uniqueKeysWithValues: rows.map { ($0.title, $0.createdAt.timeIntervalSince(now)) })
        XCTAssertEqual(dated["c1"] ?? .nan, 0, accuracy: 2, "read before a jump forward")
        XCTAssertEqual(dated["c2"] ?? .nan, 0, accuracy: 2, "read before a jump back")
        XCTAssertEqual(dated["c3"] ?? .nan, -5, accuracy: 0.01, "a pre-roll, by the clock as it is")
        XCTAssertEqual(rows.last?.title, "c3", "listed by the new dates (newest first)")
        // Stamped with the boot clock now: a later jump moves them with the others.
        let later = try await library.redate(offsetMs: BootClock.offsetMs + 3_600_000)
        XCTAssertEqual(later.recordings, 3)
    }
}
