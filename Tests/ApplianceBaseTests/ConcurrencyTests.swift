import Foundation
import XCTest

@testable import ApplianceBase

/// The primitives that stand between streaming threads and async code: none of them may hang.
final class ConcurrencyTests: XCTestCase {
    func testOneShotTimeoutsCannotBeMissed() async {
        // Timeouts as short as the registration itself, racing fires from other threads: every wait returns.
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<2000 {
                group.addTask {
                    let shot = OneShot<Int>()
                    if index % 3 == 0 { DispatchQueue.global().async { shot.fire(index) } }
                    let value = await shot.wait(timeout: .microseconds(index % 7))
                    if let value { XCTAssertEqual(value, index) }
                }
            }
        }
    }

    func testOneShotWaitIgnoresCancellationButNotTheValue() async {
        let shot = OneShot<Bool>()
        let waiter = Task { await shot.wait(timeout: .seconds(5)) }
        waiter.cancel()  // a finalising recording must still wait for its muxer during shutdown
        // the subject: the value comes after the cancelled waiter began waiting
        try? await Task.sleep(for: .milliseconds(50))
        shot.fire(true)
        let value = await waiter.value
        XCTAssertEqual(value, true)
        let late = await shot.wait(timeout: .zero)
        XCTAssertEqual(late, true, "a fired shot answers at once")
        let calledBack = Locked(false)
        shot.whenFired { _ in calledBack.withLock { $0 = true } }
        XCTAssertTrue(calledBack.withLock { $0 })
    }

    func testWakeSignalKeepsOneSignalAndSurvivesTimeoutsAndCancellation() async {
        let wake = WakeSignal()
        let started = ContinuousClock.now
        await wake.wait(until: .now + .milliseconds(30))
        XCTAssertGreaterThanOrEqual(ContinuousClock.now - started, .milliseconds(30))
        wake.signal()
        wake.signal()
        await wake.wait(until: nil)  // the kept signal: returns at once
        let cancelled = Task { await wake.wait(until: nil) }
        cancelled.cancel()
        await cancelled.value
        let woken = Task { await wake.wait(until: .now + .seconds(10)) }
        try? await Task.sleep(for: .milliseconds(20))  // the subject: the signal comes while the task waits, not before
        wake.signal()
        await woken.value
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
    }
}
