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

    /// Each channel's states are kept apart: the rear's motion does not replace the first's, and a new
    /// subscription starts with both, from each channel's status.
    func testEachChannelsStatesAreKeptApart() async throws {
        var status = StatusReport(
            state: .recording, ready: true, recording: nil, cameras: ["road", "cabin"], activeCamera: "road",
            cameraSources: [:], audioSource: "test", preview: "none", encoder: "x264", width: 640, height: 360,
            framerate: 30, dataDir: "/tmp", uptimeS: 1, recordingsThisRun: 0, lastError: nil, gstreamerVersion: "1.22",
            recordingsTotal: 0, databaseBytes: 0, recovery: nil,
            output: OutputStats(frames: 0, slotCollisions: 0, filledSlots: 0, missingSlots: 0, missingAtEncoder: 0),
            storage: StorageStatus(state: .ok, recordingsDir: "/tmp/r"))
        var rear = ChannelStatus(
            name: "rear", state: .recording, recordingId: "r", cameras: ["cabin"], activeCamera: "cabin",
            encoder: "x264", width: 320, height: 180, framerate: 30)
        rear.motion = MotionStatus(
            active: true, score: 0.3, fps: 5, width: 160, height: 90, framesAnalysed: 9, events: 1)
        rear.objects = ObjectStatus(
            detector: "HOG", track: ["person"], fps: 2, width: 320, height: 180, runs: 1, skipped: 0, failures: 0,
            detections: [:], present: [:], events: 0, meanRunMs: 30)
        status.channels = [rear]
        let s = PullPointSubscriptions()
        s.setInitial(ONVIFEventFeed.initialStates(status, otherChannels: ["rear"], now: start))
        var rearStill = MotionEvent(camera: "cabin", startedAt: start, zones: [], peakScore: 0)
        rearStill.channel = "rear"
        s.publish(try XCTUnwrap(ONVIFNotification(.motionEnded(rearStill), at: start, otherChannels: ["rear"])))
        let (id, _) = try s.create(requested: nil, now: start)
        let states = try await s.pull(id, timeout: 0, limit: 100, now: start).messages
        XCTAssertEqual(
            states.map { "\($0.property):\($0.channel):\($0.value)" },
            [
                "motion::false", "motion:rear:false", "sound::false", "recording::false", "recording:rear:true",
                "person:rear:false",
            ])
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
