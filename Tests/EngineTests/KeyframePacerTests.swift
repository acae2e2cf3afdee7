import XCTest

@testable import Engine

/// Which keyframes a recording file indexes as such: the first, then one at least an interval after the last.
final class KeyframePacerTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    func testRegularKeyframesAreAllIndexedDespiteJitter() {
        var pacer = KeyframePacer(interval: 1000 * ms, tolerance: 16 * ms)
        let times: [UInt64] = [0, 999, 2000, 2998, 4001].map { $0 * ms }
        XCTAssertEqual(times.map { pacer.indexes(keyframeAt: $0) }, [true, true, true, true, true])
        XCTAssertEqual(pacer.unindexed, 0)
    }

    /// Scene cuts every 100 ms: one keyframe a second stays one.
    func testAStormKeepsOneKeyframePerInterval() {
        var pacer = KeyframePacer(interval: 1000 * ms, tolerance: 16 * ms)
        let kept = (0..<30).map { UInt64($0) * 100 * ms }.filter { pacer.indexes(keyframeAt: $0) }
        XCTAssertEqual(kept, [0, 1000 * ms, 2000 * ms])
        XCTAssertEqual(pacer.unindexed, 27)
    }

    /// Keyframes closer together than asked for by the config itself (keyframe_interval_s 0.5, sync_interval_s 1):
    /// every other one is indexed.
    func testKeyframesTwiceAsOftenAsTheIntervalIndexEveryOther() {
        var pacer = KeyframePacer(interval: 1000 * ms, tolerance: 16 * ms)
        XCTAssertEqual(
            (0..<6).map { pacer.indexes(keyframeAt: UInt64($0) * 500 * ms) }, [true, false, true, false, true, false])
    }

    /// Time going back (a new segment of timestamps) indexes the keyframe and counts from it.
    func testTimeGoingBackIndexes() {
        var pacer = KeyframePacer(interval: 1000 * ms, tolerance: 16 * ms)
        XCTAssertTrue(pacer.indexes(keyframeAt: 5000 * ms))
        XCTAssertTrue(pacer.indexes(keyframeAt: 100 * ms))
        XCTAssertFalse(pacer.indexes(keyframeAt: 600 * ms))
    }
}
