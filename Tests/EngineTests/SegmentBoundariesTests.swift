import XCTest

@testable import Engine

/// The seams between a loop's segments: frames missing or repeated where one file ends and the next begins.
final class SegmentBoundariesTests: XCTestCase {
    func testSeamsCountMissingAndRepeatedFrames() {
        var b = SegmentBoundaries()
        let interval: UInt64 = 33_333_333
        b.note(lastFrame: 1_000_000_000, nextFirstFrame: 1_000_000_000 + interval, frameInterval: interval)
        XCTAssertEqual(b, SegmentBoundaries(count: 1))
        b.note(
            lastFrame: 2_000_000_000, nextFirstFrame: 2_000_000_000 + 3 * interval + 2_000_000, frameInterval: interval)
        XCTAssertEqual(b.missingFrames, 2)
        XCTAssertEqual(b.largestGapNs, 2 * interval + 2_000_000)
        b.note(lastFrame: 3_000_000_000, nextFirstFrame: 3_000_000_000, frameInterval: interval)
        XCTAssertEqual(b.repeatedFrames, 1)
        XCTAssertEqual(b.count, 3)
    }
}
