import Foundation
import MotionAndSound
import TestSupport
import XCTest

@testable import Engine

/// `[objects] cpu_budget`: after a run the objects tap rests until the run fits the budget (a quarter of a core: three
/// times the run's CPU time), counts the frames due meanwhile as held, and says the rate it holds.
final class ObjectBudgetTests: XCTestCase {
    private func movingTap(budget: Double) -> ObjectTap {
        let motion = MotionTap(fps: 5, width: 64, height: 36)
        motion.update { $0.boxes = [MotionBox(x: 0, y: 0, width: 0.5, height: 0.5)] }
        return ObjectTap(fps: 5, width: 64, height: 36, channels: 1, motion: motion, budget: budget)
    }

    /// Frames 250 ms apart (within 5 fps); a run of 0.2 CPU seconds at a quarter of a core rests 0.6 s: the frames
    /// due in those 0.6 s are held, the first after them is taken.
    func testARunRestsThreeTimesItsCPUTimeAtAQuarterOfACore() {
        let tap = movingTap(budget: 0.25)
        var time: UInt64 = 0
        func nextFrame() -> Bool {
            time += 250_000_000
            return tap.admit(runningTime: time)
        }
        XCTAssertTrue(nextFrame(), "the first frame is looked at")
        tap.receive(pixels: [UInt8](repeating: 0, count: 64 * 36), capturedAt: Date())
        let ended = ContinuousClock.now
        tap.ran(milliseconds: 200, cpuSeconds: 0.2, detections: [], failed: false)
        var held = 0
        while !nextFrame() {
            held += 1
            XCTAssertLessThan(ContinuousClock.now - ended, .seconds(5), "the rest never ended")
            Thread.sleep(forTimeInterval: 0.02)
        }
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - ended, .milliseconds(600), "taken before the rest ended")
        XCTAssertEqual(tap.current.held, UInt64(held))
        XCTAssertGreaterThan(held, 0)
        // A quarter of a core over runs of 0.2 s: 1.25 runs a second, below fps.
        XCTAssertEqual(tap.heldFps, 1.25, accuracy: 0.001)
        XCTAssertEqual(tap.status?.heldFps, 1.25)
        XCTAssertEqual(tap.status?.cpuBudget, 0.25)
    }

    /// Without a budget, the frame after a run is taken at once, and the rate held is `fps`.
    func testNoBudgetTakesTheNextFrameAtOnce() {
        let tap = movingTap(budget: 0)
        XCTAssertTrue(tap.admit(runningTime: 250_000_000))
        tap.receive(pixels: [UInt8](repeating: 0, count: 64 * 36), capturedAt: Date())
        tap.ran(milliseconds: 200, cpuSeconds: 0.2, detections: [], failed: false)
        XCTAssertTrue(tap.admit(runningTime: 500_000_000))
        XCTAssertEqual(tap.current.held, 0)
        XCTAssertEqual(tap.heldFps, 5)
    }

    /// Cheap runs fit the budget at `fps`: the rate held is `fps`.
    func testCheapRunsAreHeldAtFps() {
        let tap = movingTap(budget: 0.25)
        XCTAssertTrue(tap.admit(runningTime: 250_000_000))
        tap.receive(pixels: [UInt8](repeating: 0, count: 64 * 36), capturedAt: Date())
        tap.ran(milliseconds: 10, cpuSeconds: 0.01, detections: [], failed: false)
        XCTAssertEqual(tap.heldFps, 5)
    }
}
