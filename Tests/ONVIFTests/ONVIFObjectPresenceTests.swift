import ApplianceProtocol
import Foundation
import XCTest

@testable import ONVIF

/// Objects on ONVIF: each class Home Assistant's parsers know (PeopleDetect, VehicleDetect, DogCatDetect) is one
/// topic, true while any of its labels is present, told only when that changes; other labels make no notification.
final class ONVIFObjectPresenceTests: XCTestCase {
    private func event(_ label: String, starts: Bool, channel: String? = nil) -> ApplianceEvent {
        let o = ObjectEvent(
            label: label, camera: "front", startedAt: Date(), score: 0.9,
            box: ObjectBox(x: 0, y: 0, width: 0.1, height: 0.3), channel: channel)
        return starts ? .objectStarted(o) : .objectEnded(o)
    }

    func testAClassIsPresentWhileAnyOfItsLabelsIs() throws {
        var presence = ONVIFObjectPresence(otherChannels: ["rear"])
        let now = Date()
        let rear = try XCTUnwrap(presence.fold(event("person", starts: true, channel: "rear"), at: now))
        XCTAssertEqual([rear.property.rawValue, rear.channel], [ONVIFNotification.Property.person.rawValue, "rear"])
        XCTAssertTrue(rear.element.xmlString.contains("Name=\"Source\" Value=\"camera-rear\""), "the rear's source")
        let person = try XCTUnwrap(
            presence.fold(event("person", starts: true), at: now), "the rear's person is not in the first's picture")
        XCTAssertEqual([person.property, .person], [.person, .person])
        XCTAssertEqual(person.channel, "")
        XCTAssertTrue(person.value)
        XCTAssertEqual(presence.fold(event("car", starts: true), at: now)?.property, .vehicle)
        XCTAssertNil(presence.fold(event("truck", starts: true), at: now), "the vehicle is already present")
        XCTAssertNil(presence.fold(event("car", starts: false), at: now), "the truck is still there")
        let gone = try XCTUnwrap(presence.fold(event("truck", starts: false), at: now))
        XCTAssertEqual(gone.property, .vehicle)
        XCTAssertFalse(gone.value)
        XCTAssertEqual(presence.fold(event("dog", starts: true), at: now)?.property, .pet)
        XCTAssertNil(presence.fold(event("umbrella", starts: true), at: now), "no topic for it")
        XCTAssertNil(
            presence.fold(.motionStarted(MotionEvent(camera: nil, startedAt: now, zones: [], peakScore: 0.1)), at: now))
        XCTAssertEqual(
            presence.fold(event("person", starts: false, channel: "rear"), at: now)?.value, false,
            "the rear's person left; the first's is still there")
    }

    /// Motion and recording are each profile's: a channel after the first names its own video source and recording
    /// job, and an event of a channel that is no other profile (the first's, by its name or `main`) is the first's.
    func testMotionAndRecordingAreEachProfilesOwn() throws {
        let others = ["rear"]
        var rearMotion = MotionEvent(camera: "cabin", startedAt: Date(), zones: [], peakScore: 0.2)
        rearMotion.channel = "rear"
        let motion = try XCTUnwrap(ONVIFNotification(.motionStarted(rearMotion), otherChannels: others))
        XCTAssertEqual([motion.channel, "\(motion.value)"], ["rear", "true"])
        XCTAssertTrue(
            motion.element.xmlString.contains("Name=\"VideoSourceConfigurationToken\" Value=\"camera-rear\""),
            motion.element.xmlString)
        let first = try XCTUnwrap(ONVIFNotification(.motionStarted(MotionEvent.sample), otherChannels: others))
        XCTAssertTrue(first.element.xmlString.contains("Value=\"camera\""), first.element.xmlString)

        var started = RecordingStarted(id: "a", title: "", partialPath: "/tmp/a.mp4", createdAt: Date())
        started.channel = "rear"
        let recording = try XCTUnwrap(ONVIFNotification(.recordingStarted(started), otherChannels: others))
        XCTAssertTrue(
            recording.element.xmlString.contains("Name=\"RecordingJobToken\" Value=\"recording-rear\""),
            recording.element.xmlString)
        started.channel = "front"
        let front = try XCTUnwrap(ONVIFNotification(.recordingStarted(started), otherChannels: others))
        XCTAssertEqual(front.channel, "", "the first channel's name: the first profile")
        XCTAssertTrue(front.element.xmlString.contains("Value=\"recording\""))
        XCTAssertNotEqual(front.key, recording.key)
        XCTAssertEqual(
            ONVIFNotification(.soundStarted(SoundEvent(startedAt: Date(), peakDb: -10)), otherChannels: others)?.key
                .channel, "", "sound is the device's microphone")
    }

    /// The message is the one onvif-parsers reads: topic, a `Source` item, the first `Data` item's value.
    func testTheMessageIsTheOneHomeAssistantReads() throws {
        let message = ONVIFNotification(
            property: .person, value: true, time: Date(timeIntervalSince1970: 1_700_000_000), operation: .changed)
        let xml = message.element.xmlString
        XCTAssertTrue(xml.contains("tns1:RuleEngine/MyRuleDetector/PeopleDetect"), xml)
        XCTAssertTrue(xml.contains("Name=\"Source\""), xml)
        XCTAssertTrue(xml.contains("<tt:Data><tt:SimpleItem Name=\"State\" Value=\"true\""), xml)
    }
}
