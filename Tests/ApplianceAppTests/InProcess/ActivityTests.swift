import ApplianceBase
import ApplianceProtocol
import Foundation
import Mp4
import XCTest

@testable import ApplianceApp

/// Activity records through the commands, on a seeded library of real files: marks and presses stored, listed with
/// their filters, shown with the recordings that cover them, protected; retention keeping those recordings longer.
final class ActivityTests: XCTestCase {
    private var directory: URL!

    override func setUp() async throws { directory = try TestAppliance.makeDirectory() }
    override func tearDown() async throws { try? FileManager.default.removeItem(at: directory) }

    private func clipStart(_ appliance: TestAppliance, _ id: String) async throws -> Date {
        try XCTUnwrapAsync(try await appliance.appliance.dispatcher.clips.library.fetch(id: id)).createdAt
    }

    private func mark(_ appliance: TestAppliance, _ label: String, at: Date? = nil, durationS: Double? = nil)
        async throws -> Activity
    {
        guard
            case .activityMarked(let activity) = try await appliance.perform(
                .activityMark(ActivityMark(label: label, at: at, durationS: durationS)))
        else {
            throw XCTSkip("unexpected result")
        }
        return activity
    }

    private func list(_ appliance: TestAppliance, _ filter: ActivityFilter = ActivityFilter()) async throws
        -> ActivityList
    {
        guard case .activity(let list) = try await appliance.perform(.activity(filter)) else {
            throw XCTSkip("unexpected result")
        }
        return list
    }

    func testAMarkIsStoredShownWithItsRecordingAndAnnounced() async throws {
        let ids = try SeededLibrary.seed(in: directory)
        let appliance = try await TestAppliance(directory: directory)
        let start = try await clipStart(appliance, ids[2])
        let marked = try await mark(appliance, "door opened", at: start.addingTimeInterval(0.5))
        XCTAssertEqual(marked.kind, .external)
        XCTAssertEqual(marked.label, "door opened")
        XCTAssertEqual(marked.durationS, 0)
        XCTAssertNil(marked.thumbnail, "a mark in the past has no picture of its moment")
        let announced = await appliance.events.first { event -> Activity? in
            if case .activity(let a) = event, a.id == marked.id { return a }
            return nil
        }
        XCTAssertEqual(announced, marked)

        guard case .activityDetail(let detail) = try await appliance.perform(.activityShow(id: marked.id)) else {
            return XCTFail()
        }
        XCTAssertEqual(detail.activity, marked)
        XCTAssertEqual(detail.recordings.map(\.id), [ids[2]], "the clip that covers it")

        // A mark now has the live picture.
        let now = try await mark(appliance, "bell")
        let picture = try XCTUnwrap(now.thumbnail)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: picture)).prefix(2), Data([0xFF, 0xD8]), "a JPEG")
        try await appliance.stop()
    }

    func testFiltersByKindTimeAndNumber() async throws {
        let appliance = try await TestAppliance()
        defer { appliance.removeDirectory() }
        let base = Date(timeIntervalSinceNow: -3600).rounded
        for n in 0..<5 {
            _ = try await mark(appliance, "m\(n)", at: base.addingTimeInterval(Double(n) * 60), durationS: 10)
        }
        guard case .protected = try await appliance.perform(.protect(before: 1, after: 0)) else { return XCTFail() }

        let all = try await list(appliance)
        XCTAssertEqual(all.total, 6)
        XCTAssertEqual(all.items.first?.kind, .manual, "newest first: the press")
        XCTAssertEqual(all.items.first?.label, "protect")
        XCTAssertEqual(all.items.dropFirst().map(\.label), ["m4", "m3", "m2", "m1", "m0"])

        let manual = try await list(appliance, ActivityFilter(kinds: [.manual]))
        XCTAssertEqual(manual.items.map(\.kind), [.manual])
        let detected = try await list(appliance, ActivityFilter(kinds: [.motion, .sound]))
        XCTAssertEqual(detected.total, 0)
        // [m1's end, m3's start): m1 (it meets the range by its last second), m2; m3 starts at the range's end.
        let range = try await list(
            appliance, ActivityFilter(from: base.addingTimeInterval(65), to: base.addingTimeInterval(180)))
        XCTAssertEqual(range.items.map(\.label), ["m2", "m1"])
        let limited = try await list(appliance, ActivityFilter(limit: 2))
        XCTAssertEqual(limited.items.count, 2)
        XCTAssertEqual(limited.total, 6)
        try await appliance.stop()
    }

    /// What only the running appliance can refuse (an activity that is not there, a mark in the future); the
    /// arguments' own checks are ApplianceProtocolTests.ActivityArgumentsTests.
    func testBadRequestsAreRefusedWithReasons() async throws {
        let appliance = try await TestAppliance()
        defer { appliance.removeDirectory() }
        let missing = await appliance.refusal(.activityShow(id: 999))
        XCTAssertEqual(missing?.code, .notFound)
        XCTAssertEqual(missing?.message, "no activity with number 999")
        let unknown = await appliance.refusal(.activityProtect(id: 7))
        XCTAssertEqual(unknown?.code, .notFound)
        let future = await appliance.refusal(
            .activityMark(ActivityMark(label: "x", at: Date(timeIntervalSinceNow: 3600))))
        XCTAssertEqual(future?.message, "args.at is in the future")
        try await appliance.stop()
    }

    func testProtectingAnActivityLocksTheRecordingsThatCoverIt() async throws {
        let ids = try SeededLibrary.seed(in: directory)
        let appliance = try await TestAppliance(directory: directory)
        let start = try await clipStart(appliance, ids[4])
        // From inside clip 4 to inside clip 5, a minute later.
        let marked = try await mark(appliance, "impact", at: start.addingTimeInterval(0.5), durationS: 60)
        guard case .protected(let result) = try await appliance.perform(.activityProtect(id: marked.id)) else {
            return XCTFail()
        }
        XCTAssertEqual(Set(result.locked), [ids[4], ids[5]])
        XCTAssertNil(result.pendingUntil, "it is over: nothing still to come")
        for id in [ids[4], ids[5]] {
            let row = try await appliance.appliance.dispatcher.clips.library.fetch(id: id)
            XCTAssertEqual(row?.locked, true)
        }
        let before = try await appliance.appliance.dispatcher.clips.library.fetch(id: ids[3])
        XCTAssertEqual(before?.locked, false)
        try await appliance.stop()
    }

    func testRecordingsUnderAnActivityAreDeletedLastForRoom() async throws {
        // Marked before the daemon starts: its first retention pass runs at once.
        let ids = try SeededLibrary.seed(in: directory, marked: [1])
        let appliance = try await TestAppliance(directory: directory) { config in
            config.storage.maxUsedGb = 0.0006  // 600 kB of 1 MB: 400 kB must go
            config.storage.minFreeMb = 0
        }
        await appliance.appliance.dispatcher.retention.pass()
        let kept = try await SeededLibrary.remaining(appliance, of: ids)
        XCTAssertEqual(kept, [1, 5, 6, 7, 8, 9], "the oldest without activity went first")
        try await appliance.stop()
    }

    func testRecordingsUnderAnActivityAreKeptEventKeepDays() async throws {
        let ids = try SeededLibrary.seed(in: directory, count: 4, daysOld: 3, marked: [2])
        let appliance = try await TestAppliance(directory: directory) { config in
            config.storage.retentionDays = 2
            config.storage.eventKeepDays = 7
        }
        await appliance.appliance.dispatcher.retention.pass()
        let kept = try await SeededLibrary.remaining(appliance, of: ids)
        XCTAssertEqual(kept, [2], "three days old: only the one under an activity stays")
        try await appliance.stop()
    }
}

extension Date {
    /// Whole seconds: ISO 8601 on the wire keeps milliseconds, and the filters compare exactly.
    fileprivate var rounded: Date { Date(timeIntervalSince1970: timeIntervalSince1970.rounded()) }
}

/// `XCTUnwrap` for an async expression's value.
// swift-format-ignore: AlwaysUseLowerCamelCase
func XCTUnwrapAsync<T>(_ value: T?, file: StaticString = #filePath, line: UInt = #line) throws -> T {
    try XCTUnwrap(value, file: file, line: line)
}
