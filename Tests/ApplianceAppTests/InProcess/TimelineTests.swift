import ApplianceBase
import ApplianceProtocol
import Foundation
import XCTest

@testable import ApplianceApp

/// `timeline` through the entry point on a seeded library of real files: each clip a span, the minutes between them
/// gaps, a locked clip a lock range, a mark an event (bad ranges: ApplianceProtocolTests.TimelineArgumentsTests).
final class TimelineTests: XCTestCase {
    private var directory: URL!

    override func setUp() async throws { directory = try TestAppliance.makeDirectory() }
    override func tearDown() async throws { try? FileManager.default.removeItem(at: directory) }

    func testClipsAreSpansTheMinutesBetweenGapsAndMarksEvents() async throws {
        let ids = try SeededLibrary.seed(in: directory, count: 5, locked: [1], marked: [3])
        let appliance = try await TestAppliance(directory: directory)
        let library = appliance.appliance.dispatcher.clips.library
        let first = try XCTUnwrapAsync(try await library.fetch(id: ids[0])).createdAt
        let from = first.addingTimeInterval(-30)
        let to = first.addingTimeInterval(5 * 60)
        guard case .timeline(let t) = try await appliance.perform(.timeline(from: from, to: to)) else {
            return XCTFail("not a timeline")
        }
        XCTAssertEqual(t.spans.map(\.firstId), ids, "one span per clip (a minute apart)")
        XCTAssertTrue(t.spans.allSatisfy { $0.recordings == 1 && abs($0.end.timeIntervalSince($0.start) - 1) < 0.01 })
        XCTAssertEqual(t.recordedS, 5, accuracy: 0.01)
        XCTAssertEqual(t.gaps.count, 6, "before, between and after the clips: \(t.gaps)")
        XCTAssertEqual(t.spans.map(\.locked), [0, 1, 0, 0, 0])
        XCTAssertEqual(t.locks.count, 1)
        XCTAssertEqual(t.events.map(\.label), ["seeded 3"])
        XCTAssertGreaterThan(t.elapsedMs, 0)
    }

    func testAMonthsDaysCountTheirRecordingsLocksAndEvents() async throws {
        let ids = try SeededLibrary.seed(in: directory, count: 5, daysOld: 2, locked: [1], marked: [3])
        let appliance = try await TestAppliance(directory: directory)
        let library = appliance.appliance.dispatcher.clips.library
        var expected: [String: TimelineDay] = [:]
        for (n, id) in ids.enumerated() {
            let day = Command.dayText(try XCTUnwrapAsync(try await library.fetch(id: id)).createdAt)
            expected[day, default: TimelineDay(day: day)].recordings += 1
            expected[day]?.recordedS += 1
            if n == 1 { expected[day]?.locked += 1 }
            if n == 3 { expected[day]?.events += 1 }
        }
        let month = String(try XCTUnwrap(expected.keys.min()).prefix(7))
        guard case .timelineDays(let days) = try await appliance.perform(.timelineDays(month: month)) else {
            return XCTFail("not days")
        }
        XCTAssertEqual(days.month, month)
        XCTAssertEqual(
            days.days, expected.values.filter { $0.day.hasPrefix(month) }.sorted { $0.day < $1.day },
            "only the days with something")
        let empty = Command.dayText(Date(timeIntervalSinceNow: -400 * 86_400)).prefix(7)
        guard case .timelineDays(let none) = try await appliance.perform(.timelineDays(month: String(empty))) else {
            return XCTFail("not days")
        }
        XCTAssertEqual(none.days, [], "a month without recordings")
    }
}
