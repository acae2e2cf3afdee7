import XCTest

@testable import Engine

/// `[recording] trigger`: events start a recording and its end follows the last event by the post-roll (or the
/// gap, when longer), events closer than the gap share a clip, and a recording started by hand is left alone.
final class EventTriggerTests: XCTestCase {
    func testAnEventRecordsUntilThePostRollAfterItsEnd() {
        var t = EventTrigger(trigger: "motion", postRecordS: 5, eventGapS: 2)
        XCTAssertEqual(t.started("motion", at: 10), .start)
        XCTAssertNil(t.tick(at: 100), "no end while the event goes on")
        t.ended("motion", at: 20)
        XCTAssertEqual(t.stopAt, 25)
        XCTAssertNil(t.tick(at: 24.9))
        XCTAssertEqual(t.tick(at: 25), .stop)
        XCTAssertNil(t.tick(at: 30), "stopped once")
        XCTAssertEqual(t.started("motion", at: 40), .start, "the next event, the next clip")
    }

    func testEventsCloserThanTheGapShareOneClip() {
        var t = EventTrigger(trigger: "motion+sound", postRecordS: 1, eventGapS: 10)
        XCTAssertEqual(t.started("motion", at: 0), .start)
        t.ended("motion", at: 5)
        XCTAssertNil(t.tick(at: 12), "within the gap")
        XCTAssertNil(t.started("sound", at: 12), "the same clip goes on")
        XCTAssertNil(t.started("motion", at: 13))
        t.ended("sound", at: 14)
        XCTAssertNil(t.stopAt, "motion still goes on")
        t.ended("motion", at: 15)
        XCTAssertEqual(t.tick(at: 25), .stop)
    }

    /// `trigger = "person"` records on people only; `"object"` on any tracked label, each object going on by itself.
    func testObjectsTriggerByLabelOrAny() {
        var person = EventTrigger(trigger: "person", postRecordS: 2, eventGapS: 0)
        XCTAssertNil(person.started(EventTrigger.object("car"), at: 0), "a car is not a person")
        XCTAssertNil(person.started("motion", at: 0), "motion alone records nothing")
        XCTAssertEqual(person.started(EventTrigger.object("person"), at: 1), .start)
        person.ended(EventTrigger.object("person"), at: 5)
        XCTAssertEqual(person.tick(at: 7), .stop)

        var any = EventTrigger(trigger: "object", postRecordS: 2, eventGapS: 0)
        XCTAssertEqual(any.started(EventTrigger.object("dog"), at: 0), .start)
        XCTAssertNil(any.started(EventTrigger.object("person"), at: 1))
        any.ended(EventTrigger.object("dog"), at: 3)
        XCTAssertNil(any.stopAt, "the person is still there")
        any.ended(EventTrigger.object("person"), at: 4)
        XCTAssertEqual(any.stopAt, 6)
    }

    func testOtherKindsManualAndRecordingsEndedOtherwise() {
        var manual = EventTrigger(trigger: "manual", postRecordS: 5, eventGapS: 5)
        XCTAssertNil(manual.started("motion", at: 0), "manual: events record nothing")
        var t = EventTrigger(trigger: "sound", postRecordS: 5, eventGapS: 5)
        XCTAssertNil(t.started("motion", at: 0), "motion does not trigger a sound trigger")
        XCTAssertEqual(t.started("sound", at: 1), .start)
        t.startRefused()  // a recording started by hand was going on
        t.ended("sound", at: 2)
        XCTAssertNil(t.tick(at: 100), "a recording started by hand is not this trigger's to stop")
        XCTAssertEqual(t.started("sound", at: 101), .start)
        t.recordingEnded()  // max_duration_s, or stopped by hand
        t.ended("sound", at: 102)
        XCTAssertNil(t.tick(at: 200))
    }
}
