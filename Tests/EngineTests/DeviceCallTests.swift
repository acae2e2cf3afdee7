import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import Supervision
import XCTest

@testable import Engine

/// Calls that may never return (`DeviceCall`) and the backoff of cameras that keep failing.
final class DeviceCallTests: XCTestCase {
    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    func testACallThatReturnsInTimeGivesItsResultOrItsError() async throws {
        let value = try await DeviceCall.run("quick", deadline: .seconds(5)) { 42 }
        XCTAssertEqual(value, 42)
        do {
            _ = try await DeviceCall.run("failing", deadline: .seconds(5)) { () throws -> Int in
                throw ApplianceError(.unavailable, "no")
            }
            XCTFail("threw")
        } catch let error as ApplianceError {
            XCTAssertEqual(error.message, "no")
        }
    }

    func testACallThatHangsIsAbandonedAtItsDeadlineAndCleanedUpWhenItReturns() async throws {
        let release = DispatchSemaphore(value: 0)
        let cleaned = OneShot<Int>()
        let started = ContinuousClock.now
        do {
            _ = try await DeviceCall.run(
                "camera 'x' start", deadline: .milliseconds(300),
                afterAbandoned: { cleaned.fire((try? $0.get()) ?? -1) },
                {
                    release.wait()
                    return 7
                }
            )
            XCTFail("abandoned")
        } catch let abandoned as DeviceCall.Abandoned {
            XCTAssertEqual(
                abandoned.description, "camera 'x' start did not return within 0.3 s (abandoned on its thread)")
        }
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(3))
        XCTAssertTrue(
            DeviceCall.stuckNow.contains { $0.hasPrefix("camera 'x' start (stuck for ") }, "\(DeviceCall.stuckNow)")
        release.signal()
        let result = await cleaned.wait(timeout: .seconds(5))
        XCTAssertEqual(result, 7, "what it did is undone when it returns")
        XCTAssertFalse(DeviceCall.stuckNow.contains { $0.hasPrefix("camera 'x' start") })
    }

    func testCancellingTheWaiterAbandonsTheCallAtOnce() async throws {
        let release = DispatchSemaphore(value: 0)
        let entered = OneShot<Bool>()
        let task = Task {
            try await DeviceCall.run("camera 'y' start", deadline: .seconds(60)) {
                entered.fire(true)
                release.wait()
            }
        }
        _ = await entered.wait(timeout: .seconds(5))  // the call is under way on its thread
        task.cancel()
        do {
            try await task.value
            XCTFail("abandoned")
        } catch let abandoned as DeviceCall.Abandoned {
            XCTAssertTrue(abandoned.cancelled)
            XCTAssertEqual(abandoned.description, "camera 'y' start was abandoned (shutting down)")
        }
        release.signal()
    }

    func testTheBackoffDoublesFromOneSecondToThirty() {
        XCTAssertEqual((1...7).map { RetryBackoff.delay(after: $0) }, [1, 2, 4, 8, 16, 30, 30].map { .seconds($0) })
        var backoff = RetryBackoff()
        let t0 = ContinuousClock.now
        XCTAssertTrue(backoff.allows(t0))
        backoff.failed(at: t0)
        XCTAssertFalse(backoff.allows(t0 + .milliseconds(900)))
        XCTAssertTrue(backoff.allows(t0 + .seconds(1)))
        backoff.failed(at: t0 + .seconds(1))
        XCTAssertFalse(backoff.allows(t0 + .milliseconds(2900)))
        XCTAssertTrue(backoff.allows(t0 + .seconds(3)))
    }
}

/// A stop ends within its limit whatever a service does, and says what it left behind.
final class ShutdownDeadlineTests: XCTestCase {
    func testAStopThatRunsOverTheLimitNamesWhatIsStillRunningAndExits() async throws {
        let exited = OneShot<Int32>()
        let deadline = ShutdownDeadline(
            limit: .milliseconds(300), logger: DeviceCallTests.logger, exit: { exited.fire($0) })
        let (release, entered) = (OneShot<Bool>(), OneShot<Bool>())
        let hanging = Task {
            await deadline.during("CameraSwitcher") {
                entered.fire(true)
                _ = await release.wait(timeout: .seconds(30))
            }
        }
        await deadline.during("RecorderService") {}  // one that stopped
        _ = await entered.wait(timeout: .seconds(5))
        deadline.arm()
        let status = await exited.wait(timeout: .seconds(5))
        XCTAssertEqual(status, 1)
        XCTAssertTrue(
            deadline.abandonment.hasPrefix(
                "the stop took longer than 0.3 s; exiting without waiting further (still running: CameraSwitcher"),
            deadline.abandonment)
        release.fire(true)
        await hanging.value
    }

    func testAStopThatFinishesInTimeExitsNothing() async throws {
        let exited = OneShot<Int32>()
        let deadline = ShutdownDeadline(
            limit: .milliseconds(200), logger: DeviceCallTests.logger, exit: { exited.fire($0) })
        deadline.arm()
        deadline.finished()
        let status = await exited.wait(timeout: .milliseconds(600))
        XCTAssertNil(status)
    }
}
