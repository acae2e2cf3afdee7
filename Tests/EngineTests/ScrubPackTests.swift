import ApplianceBase
import Foundation
import XCTest

@testable import Engine

/// The scrubbing previews' pack and frame pacing as values: records read back in order, a torn last record (a
/// crash mid-write) and damage ignored, the preview for a moment, one frame per interval on the graph's time grid,
/// and files' running-time ranges.
final class ScrubPackTests: XCTestCase {
    private func temporaryPath() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("scrub-\(UUID().uuidString.prefix(8)).scrub").path
    }

    func testRecordsReadBackAndATornLastRecordIsNotRead() throws {
        let path = temporaryPath()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let jpegs: [[UInt8]] = [
            [0xFF, 0xD8, 1, 2, 0xFF, 0xD9], [0xFF, 0xD8, 3, 0xFF, 0xD9], Array(repeating: 7, count: 300),
        ]
        var records = Data()
        for (i, jpeg) in jpegs.enumerated() { records.append(ScrubPack.record(jpeg: jpeg, offsetMs: UInt32(i * 2000))) }
        try ScrubPack.append(records, to: path)
        let entries = ScrubPack.entries(path: path)
        XCTAssertEqual(entries.map(\.offsetMs), [0, 2000, 4000])
        for (entry, jpeg) in zip(entries, jpegs) {
            XCTAssertEqual(ScrubPack.jpeg(path: path, entry: entry), Data(jpeg))
        }
        // A crash while the third record was written: its header is there, not all its bytes.
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: UInt64(records.count - 100))
        try handle.close()
        XCTAssertEqual(ScrubPack.entries(path: path).map(\.offsetMs), [0, 2000])
        // Damage: a header claiming more than a preview can be.
        var damaged = Data()
        damaged.append(bigEndian: UInt32(ScrubPack.largestFrame + 1))
        damaged.append(bigEndian: UInt32(6000))
        try ScrubPack.append(damaged + Data(count: 64), to: path)
        XCTAssertEqual(ScrubPack.entries(path: path).count, 2, "nothing after damage is read")
        XCTAssertEqual(ScrubPack.entries(path: "/nonexistent/x.scrub"), [])
    }

    func testThePreviewForAMomentIsTheLastTakenAtOrBeforeIt() {
        let entries = [0, 2000, 4000].map { ScrubPack.Entry(offsetMs: UInt32($0), position: 0, length: 1) }
        XCTAssertEqual(ScrubPack.entry(at: 3999, in: entries)?.offsetMs, 2000)
        XCTAssertEqual(ScrubPack.entry(at: 4000, in: entries)?.offsetMs, 4000)
        XCTAssertEqual(ScrubPack.entry(at: 9000, in: entries)?.offsetMs, 4000)
        XCTAssertEqual(ScrubPack.entry(at: -50, in: entries)?.offsetMs, 0, "before the first: the first")
        XCTAssertNil(ScrubPack.entry(at: 10, in: []))
    }

    func testOneFramePerIntervalOnTheFrameGrid() {
        let scrub = ScrubFrames(intervalS: 2, width: 160)
        let frame = UInt64(1_000_000_000 / 30)
        let admitted = (0..<300).map { UInt64($0) * frame + 5_000_000_000 }.filter { scrub.admit(runningTime: $0) }
        XCTAssertEqual(admitted.count, 5, "10 s of 30 fps frames")
        XCTAssertEqual(Set(zip(admitted.dropFirst(), admitted).map { $0 - $1 }), [60 * frame], "every 60th frame: 2 s")
        XCTAssertFalse(scrub.admit(runningTime: nil))
    }

    func testRangesHoldTheirFramesAndAreForgottenAfterTheBacklog() {
        let scrub = ScrubFrames(intervalS: 2, width: 160)
        scrub.begin(id: "a", path: "/a", at: 1000)
        scrub.end(id: "a", at: 5000)
        scrub.begin(id: "b", path: "/b", at: 5000)
        let ranges = scrub.ranges(forgettingBefore: 6000, keep: 10_000)
        XCTAssertEqual(ranges.map(\.id), ["a", "b"])
        XCTAssertTrue(ranges[0].holds(4999) && !ranges[0].holds(5000) && !ranges[0].holds(999))
        XCTAssertTrue(ranges[1].holds(5000) && ranges[1].holds(.max), "open until ended")
        XCTAssertEqual(
            scrub.ranges(forgettingBefore: 16_000, keep: 10_000).map(\.id), ["b"], "a ended more than the backlog ago")
    }
}
