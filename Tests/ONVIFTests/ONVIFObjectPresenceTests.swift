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
        var presence = ONVIFObjectPresence()
        let now = Date()
        XCTAssertNil(
            presence.fold(event("person", starts: true, channel: "rear"), at: now),
            "the first profile's picture: another channel's person is not in it")
        let person = try XCTUnwrap(presence.fold(event("person", starts: true), at: now))
        XCTAssertEqual([person.property, .person], [.person, .person])
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
