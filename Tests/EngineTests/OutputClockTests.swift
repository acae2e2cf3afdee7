import ApplianceBase
import XCTest

@testable import Engine

/// The output grid after the camera selector and the handover boundary computed on it (pure arithmetic; the
/// end-to-end switching tests run the same code inside the live graph).
final class OutputClockTests: XCTestCase {
    let ms: UInt64 = 1_000_000
    let interval: UInt64 = 33_333_333

    /// Frames of any phase are snapped onto one grid, and a frame whose slot is taken is dropped.
    func testFramesSnapToOneGridAndATakenSlotDrops() {
        let flow = VideoFlowMonitor(framerate: 30)
        XCTAssertEqual(flow.output(time: 1_000 * ms), 1_000 * ms, "the first frame starts the grid")
        XCTAssertEqual(
            flow.output(time: 1_000 * ms + interval + 5 * ms), 1_000 * ms + interval, "late by 5 ms: same slot")
        XCTAssertNil(flow.output(time: 1_000 * ms + interval + 10 * ms), "that slot is taken")
        XCTAssertEqual(
            flow.output(time: 1_000 * ms + 2 * interval - 12 * ms), 1_000 * ms + 2 * interval,
            "early by 12 ms: next slot")
        XCTAssertEqual(flow.snapshot.slotCollisions, 1)
        XCTAssertEqual(flow.snapshot.outputFrames, 3)
    }

    /// The boundary lies half an interval before a slot, after everything shown, and after the new source's first
    /// frame.
    func testHandoverBoundaryIsHalfAnIntervalBeforeAFreeSlot() {
        let flow = VideoFlowMonitor(framerate: 30)
        XCTAssertEqual(
            flow.handoverBoundary(firstFrame: 500 * ms, oldSourcePassed: nil), 500 * ms,
            "no grid yet: the new frame itself")
        let start = 1_000 * ms
        for n in 0..<10 { _ = flow.output(time: start + UInt64(n) * interval) }  // slots 0…9 shown
        let slot = { (n: UInt64) in start + n * self.interval - self.interval / 2 }
        // A new source that is less late than the old one: its first frame falls in slot 14.
        XCTAssertEqual(
            flow.handoverBoundary(firstFrame: start + 14 * interval + 3 * ms, oldSourcePassed: nil), slot(14))
        // A later new source (its first frame belongs to a slot already shown): the first free slot.
        XCTAssertEqual(flow.handoverBoundary(firstFrame: start + 4 * interval, oldSourcePassed: nil), slot(10))
        // A frame the old source let through but the grid has not shown yet also counts.
        XCTAssertEqual(
            flow.handoverBoundary(firstFrame: start + 4 * interval, oldSourcePassed: start + 10 * interval + 2 * ms),
            slot(11))
        // Any phase: a frame 16 ms after slot 11 belongs to slot 11 (rounded), 17 ms after to slot 12.
        XCTAssertEqual(
            flow.handoverBoundary(firstFrame: start + 11 * interval + 16 * ms, oldSourcePassed: nil), slot(11))
        XCTAssertEqual(
            flow.handoverBoundary(firstFrame: start + 11 * interval + 17 * ms, oldSourcePassed: nil), slot(12))
    }

    /// The new source's first frame at the encoder input fires the watch once; earlier frames do not.
    func testEncoderArrivalWatchFiresOnTheFirstFrameFromTheBoundary() async {
        let flow = VideoFlowMonitor(framerate: 30)
        let shot = OneShot<ContinuousClock.Instant>()
        flow.watchEncoderArrival(from: 2_000 * ms, shot)
        flow.noteEncoderArrival(runningTime: 1_990 * ms)
        XCTAssertFalse(shot.isFired)
        flow.noteEncoderArrival(runningTime: 2_000 * ms)
        XCTAssertTrue(shot.isFired)
        let fired = await shot.wait(timeout: .milliseconds(10))
        XCTAssertNotNil(fired)
    }
}
