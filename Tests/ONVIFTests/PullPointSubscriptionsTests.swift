import ApplianceBase
import ApplianceProtocol
import Foundation
import XCTest

@testable import ONVIF

/// PullPoint subscriptions: the current states first (`Initialized`), then each change; a pull waits for the next
/// one (and no longer than its timeout), terms are renewed or run out, the number is capped, shutdown ends pulls.
final class PullPointSubscriptionsTests: XCTestCase {
    let start = Date()

    func subscriptions() -> PullPointSubscriptions {
        let s = PullPointSubscriptions()
        s.setInitial([
            ONVIFNotification(property: .motion, value: false, time: start, operation: .initialized),
            ONVIFNotification(property: .recording, value: true, time: start, operation: .initialized),
        ])
        return s
    }

    func testANewSubscriptionStartsWithTheStatesThenGetsEachChange() async throws {
        let s = subscriptions()
        let (id, termination) = try s.create(requested: start.addingTimeInterval(600), now: start)
        XCTAssertEqual(termination, start.addingTimeInterval(600))
        let first = try await s.pull(id, timeout: 0, limit: 100, now: start)
        XCTAssertEqual(
            first.messages.map { [$0.property.rawValue, "\($0.value)", $0.operation.rawValue] },
            [
                ["tns1:RuleEngine/CellMotionDetector/Motion", "false", "Initialized"],
                ["tns1:RecordingConfig/JobState", "true", "Initialized"],
            ])
        s.publish(try XCTUnwrap(ONVIFNotification(.motionStarted(MotionEvent.sample), at: start)))
        s.publish(try XCTUnwrap(ONVIFNotification(.soundEnded(SoundEvent(startedAt: start, peakDb: -20)), at: start)))
        let second = try await s.pull(id, timeout: 0, limit: 1, now: start)
        XCTAssertEqual(second.messages.map(\.value), [true], "MessageLimit is kept")
        let third = try await s.pull(id, timeout: 0, limit: 10, now: start)
        XCTAssertEqual(third.messages.map { "\($0.property):\($0.value):\($0.operation)" }, ["sound:false:changed"])

        try s.synchronize(id, now: start)
        let synchronized = try await s.pull(id, timeout: 0, limit: 10, now: start)
        XCTAssertEqual(
            synchronized.messages.map { "\($0.property):\($0.value):\($0.operation)" },
            ["motion:true:initialized", "sound:false:initialized", "recording:true:initialized"],
            "the states as they are now")
    }

    func testAPullWaitsForTheNextEventAndNoLongerThanItsTimeout() async throws {
        let s = subscriptions()
        let (id, _) = try s.create(requested: nil, now: Date())
        _ = try await s.pull(id, timeout: 0, limit: 100)
        let clock = ContinuousClock()
        let waited = try await clock.measure {
            let r = try await s.pull(id, timeout: 0.3, limit: 100)
            XCTAssertTrue(r.messages.isEmpty)
        }
        XCTAssertGreaterThanOrEqual(waited, .milliseconds(290), "an empty pull lasts its timeout")

        async let pulled = s.pull(id, timeout: 30, limit: 100)
        // the subject: the event comes while the pull waits (nothing shows it waits)
        try await Task.sleep(for: .milliseconds(100))
        s.publish(try XCTUnwrap(ONVIFNotification(.motionStarted(MotionEvent.sample))))
        let messages = try await pulled.messages
        XCTAssertEqual(messages.map(\.value), [true], "the waiting pull returned with the event")
    }

    func testTermsRenewalExpiryUnsubscribeAndTheCap() throws {
        let s = subscriptions()
        let (id, _) = try s.create(requested: start.addingTimeInterval(60), now: start)
        XCTAssertEqual(
            try s.renew(id, requested: start.addingTimeInterval(600), now: start.addingTimeInterval(50)),
            start.addingTimeInterval(600))
        XCTAssertEqual(s.expire(now: start.addingTimeInterval(599)), 0)
        XCTAssertEqual(s.expire(now: start.addingTimeInterval(600)), 1)
        XCTAssertThrowsError(try s.synchronize(id, now: start)) {
            XCTAssertEqual(($0 as? SOAPFault)?.subcode, "wsrf-rw:ResourceUnknownFault")
        }

        XCTAssertEqual(
            try s.create(requested: start.addingTimeInterval(1), now: start).termination, start.addingTimeInterval(10),
            "at least 10 s")
        XCTAssertEqual(
            try s.create(requested: start.addingTimeInterval(1e7), now: start).termination,
            start.addingTimeInterval(86_400), "at most a day")
        var ids: [String] = []
        for _ in 0..<(PullPointSubscriptions.maxSubscriptions - 2) {
            ids.append(try s.create(requested: nil, now: start).id)
        }
        XCTAssertThrowsError(try s.create(requested: nil, now: start)) {
            XCTAssertTrue("\($0)".contains("too many subscriptions"))
        }
        try s.unsubscribe(ids[0], now: start)
        XCTAssertNoThrow(try s.create(requested: nil, now: start))
        XCTAssertThrowsError(try s.unsubscribe(ids[0], now: start))
    }

    func testAQueueKeepsTheNewestMessages() async throws {
        let s = subscriptions()
        let (id, _) = try s.create(requested: nil)
        for i in 0..<(PullPointSubscriptions.maxQueued + 30) {
            s.publish(
                ONVIFNotification(
                    property: .motion, value: i % 2 == 0, time: start.addingTimeInterval(Double(i)), operation: .changed
                ))
        }
        let pulled = try await s.pull(id, timeout: 0, limit: 1000)
        XCTAssertEqual(pulled.messages.count, PullPointSubscriptions.maxQueued)
        XCTAssertEqual(
            pulled.messages.last?.time, start.addingTimeInterval(Double(PullPointSubscriptions.maxQueued + 29)))
    }

    func testShutdownEndsWaitingPulls() async throws {
        let s = subscriptions()
        let (id, _) = try s.create(requested: nil)
        _ = try await s.pull(id, timeout: 0, limit: 100)
        let pulled = Task { try? await s.pull(id, timeout: 60, limit: 100) }
        // the subject: the shutdown comes while the pull waits (nothing shows it waits)
        try await Task.sleep(for: .milliseconds(100))
        let began = ContinuousClock.now
        s.finishAll()
        _ = await pulled.value
        XCTAssertLessThan(ContinuousClock.now - began, .seconds(5))
        XCTAssertThrowsError(try s.create(requested: nil)) { _ in }
    }
}

extension MotionEvent {
    static var sample: MotionEvent {
        MotionEvent(camera: "main", startedAt: Date(), endedAt: nil, zones: [], peakScore: 0.2)
    }
}
