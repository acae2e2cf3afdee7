import ApplianceProtocol
import Foundation
import MediaLibrary
import XCTest

@testable import Engine

/// The timeline as a pure function of the range's files and activity: spans where files meet, gaps between them
/// (until now, never in the future), locked ranges, everything clipped to the range.
final class TimelineBuilderTests: XCTestCase {
    let t0 = Date(timeIntervalSince1970: 1_790_000_000)

    func at(_ s: Double) -> Date { t0.addingTimeInterval(s) }

    func file(
        _ id: String, _ start: Double, _ end: Double, group: String? = nil, camera: String? = "front",
        locked: Bool = false,
        live: Bool = false, channel: String? = nil
    ) -> TimelineFile {
        TimelineFile(
            id: id, start: at(start), end: at(end), group: group, camera: camera, locked: locked, live: live,
            channel: channel)
    }

    /// Two channels recording side by side: a span each over the same time (in order of their start), not one span
    /// of both; the time recorded counts their common time once, and the gaps are where neither recorded.
    func testChannelsSideBySideHaveSpansOfTheirOwn() {
        let files = [
            file("f1", 100, 110, group: "gf", channel: "front"), file("r1", 100.2, 110.2, group: "gr", channel: "rear"),
            file("f2", 110, 120, group: "gf", channel: "front"), file("r2", 110.2, 125, group: "gr", channel: "rear"),
            file("f3", 200, 210, channel: "front"),
        ]
        let t = TimelineBuilder.build(
            files: files, events: ActivityList(items: [], total: 0), from: at(0), to: at(300), now: at(300))
        XCTAssertEqual(t.spans.map(\.firstId), ["f1", "r1", "f3"])
        XCTAssertEqual(t.spans.map(\.channel), ["front", "rear", "front"])
        XCTAssertEqual(t.spans.map(\.recordings), [2, 2, 1])
        XCTAssertEqual(t.spans.map(\.group), ["gf", "gr", nil], "each channel's loop stays one group")
        XCTAssertEqual(t.spans[1].end, at(125))
        XCTAssertEqual(t.recordedS, 35, accuracy: 0.001, "100–125 and 200–210: the common time once")
        XCTAssertEqual(
            t.gaps,
            [
                TimelineRange(start: at(0), end: at(100)), TimelineRange(start: at(125), end: at(200)),
                TimelineRange(start: at(210), end: at(300)),
            ])
    }

    func testSegmentsThatMeetAreOneSpanAndTheTimeBetweenIsAGap() {
        let files = [
            file("s1", 100, 110, group: "g"), file("s2", 110, 120, group: "g"),
            file("s3", 120.4, 130, group: "g", camera: "rear"),
            file("c1", 1000, 1030, locked: true),
        ]
        let t = TimelineBuilder.build(
            files: files, events: ActivityList(items: [], total: 0), from: at(0), to: at(3600), now: at(2000))
        XCTAssertEqual(
            t.spans,
            [
                TimelineSpan(
                    start: at(100), end: at(130), recordings: 3, firstId: "s1", group: "g", cameras: ["front", "rear"]),
                TimelineSpan(
                    start: at(1000), end: at(1030), recordings: 1, firstId: "c1", cameras: ["front"], locked: 1),
            ])
        XCTAssertEqual(
            t.gaps,
            [
                TimelineRange(start: at(0), end: at(100)), TimelineRange(start: at(130), end: at(1000)),
                TimelineRange(start: at(1030), end: at(2000)),
            ], "the future is no gap")
        XCTAssertEqual(t.locks, [TimelineRange(start: at(1000), end: at(1030))])
        XCTAssertEqual(t.recordedS, 60, accuracy: 0.001)
    }

    func testFilesAreClippedToTheRangeAndDifferentRecordingsShareNoGroup() {
        let files = [file("a", -5, 5, group: "g1"), file("b", 5, 15, group: "g2", locked: true), file("c", 3590, 3700)]
        let t = TimelineBuilder.build(
            files: files, events: ActivityList(items: [], total: 0), from: at(0), to: at(3600), now: at(9999))
        XCTAssertEqual(t.spans.map(\.start), [at(0), at(3590)])
        XCTAssertEqual(t.spans.map(\.end), [at(15), at(3600)])
        XCTAssertNil(t.spans[0].group, "two loop recordings in one span")
        XCTAssertEqual(t.spans[0].firstId, "a")
        XCTAssertEqual(t.gaps, [TimelineRange(start: at(15), end: at(3590))])
        XCTAssertEqual(t.locks, [TimelineRange(start: at(5), end: at(15))])
    }

    func testTheFileBeingWrittenEndsTheSpanNow() {
        let files = [file("s1", 0, 10, group: "g"), file("s2", 10, 42, group: "g", live: true)]
        let t = TimelineBuilder.build(
            files: files, events: ActivityList(items: [], total: 0), from: at(0), to: at(3600), now: at(42))
        XCTAssertEqual(t.spans.count, 1)
        XCTAssertTrue(t.spans[0].live)
        XCTAssertEqual(t.gaps, [], "nothing missing up to now")
    }

    func testEventsComeOldestFirstWithTheirTotal() {
        let newest = Activity(id: 2, kind: .sound, startedAt: at(50), endedAt: at(52))
        let oldest = Activity(id: 1, kind: .motion, startedAt: at(10), endedAt: at(14))
        let t = TimelineBuilder.build(
            files: [], events: ActivityList(items: [newest, oldest], total: 5), from: at(0), to: at(100), now: at(100))
        XCTAssertEqual(t.events.map(\.id), [1, 2])
        XCTAssertEqual(t.eventsTotal, 5)
        XCTAssertEqual(t.gaps, [TimelineRange(start: at(0), end: at(100))])
    }
}
