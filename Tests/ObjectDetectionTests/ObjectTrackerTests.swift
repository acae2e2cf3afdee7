import Foundation
import XCTest

@testable import ObjectDetection

/// An object starts when it persists with a high median score and ends after a quiet release; one stray detection,
/// or a low-scoring flicker (what foliage gives), never starts one.
final class ObjectTrackerTests: XCTestCase {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    func person(_ score: Double) -> ObjectDetection {
        ObjectDetection(label: "person", score: score, x: 10, y: 10, width: 64, height: 128)
    }

    /// Runs at 5 a second: run `i` at t0 + i × 0.2 s.
    func at(_ i: Int) -> Date { t0.addingTimeInterval(Double(i) * 0.2) }

    func testAPersistentObjectStartsAtItsFirstSightingAndEndsAfterTheRelease() {
        var tracker = ObjectTracker()
        XCTAssertEqual(tracker.run([person(0.8)], at: at(0)), [])
        XCTAssertEqual(
            tracker.run([person(0.9), person(0.6)], at: at(1)),
            [.started(label: "person", at: at(0), best: person(0.9))])
        XCTAssertEqual(tracker.present, ["person"])
        for i in 2..<10 { XCTAssertEqual(tracker.run(i % 3 == 0 ? [] : [person(0.75)], at: at(i)), [], "run \(i)") }
        // Last seen at run 8; quiet from then: it ends 5 s after run 8, not before.
        XCTAssertEqual(tracker.run([], at: at(8 + 24)), [])
        XCTAssertEqual(
            tracker.run([], at: at(8 + 25)),
            [.ended(label: "person", startedAt: at(0), lastSeen: at(8), best: person(0.9))])
        XCTAssertEqual(tracker.present, [])
        // Seen again later: a new object, from its own first sighting.
        _ = tracker.run([person(0.8)], at: at(100))
        XCTAssertEqual(
            tracker.run([person(0.8)], at: at(101)), [.started(label: "person", at: at(100), best: person(0.8))])
    }

    func testStrayAndLowScoringDetectionsStartNothing() {
        var tracker = ObjectTracker()
        // One high score among misses, again and again: never twice within three runs.
        for i in 0..<30 { XCTAssertEqual(tracker.run(i % 3 == 0 ? [person(0.95)] : [], at: at(i)), [], "run \(i)") }
        // Found in every run, but at scores whose median stays under the threshold (0.7), with a high one now and then.
        var flicker = ObjectTracker()
        for i in 0..<30 {
            XCTAssertEqual(
                flicker.run([person(i % 5 == 0 ? 0.95 : 0.55 + Double(i % 2) * 0.05)], at: at(i)), [], "run \(i)")
        }
        XCTAssertEqual(flicker.present, [])
        // Under min_score (0.5) a detection is not one at all; NaN neither.
        var other = ObjectTracker()
        for i in 0..<10 { XCTAssertEqual(other.run([person(0.45), person(.nan)], at: at(i)), []) }
    }

    func testLabelsAreTrackedApart() {
        var tracker = ObjectTracker()
        let car = ObjectDetection(label: "car", score: 0.9, x: 0, y: 0, width: 100, height: 50)
        _ = tracker.run([person(0.9), car], at: at(0))
        XCTAssertEqual(tracker.run([person(0.9)], at: at(1)), [.started(label: "person", at: at(0), best: person(0.9))])
        XCTAssertEqual(tracker.run([car], at: at(2)), [.started(label: "car", at: at(0), best: car)])
        XCTAssertEqual(tracker.present, ["car", "person"])
    }
}
