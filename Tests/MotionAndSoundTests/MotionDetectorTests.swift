import ApplianceBase
import XCTest

@testable import MotionAndSound

/// The motion detector on generated scenes with known ground truth (MotionScene: 160x90 at 5 fps, as the motion
/// branch gives them): real motion is found within 0.5 s of its start and ends after the release time; the light,
/// dusk, sensor noise, rain, a flash, a shaking camera, motion in a mask and a brief insect make no event.
final class MotionDetectorTests: XCTestCase {
    func testAnObjectCrossingThePictureIsOneEventFromItsStartToItsEnd() {
        let scene = MotionSceneCatalog.crossing
        let seen = scene.make(7).run()
        let truth = scene.truth(7)[0]
        XCTAssertEqual(seen.starts.count, 1, "\(seen.starts)")
        XCTAssertEqual(
            seen.starts.first ?? -1, truth.lowerBound, accuracy: 0.5,
            "the event starts within 0.5 s of the object's entry")
        // The event ends at its last motion (reported releaseS later): when the object has left.
        XCTAssertEqual(seen.ends.count, 1, "\(seen.ends)")
        XCTAssertEqual(seen.ends.first ?? -1, truth.upperBound, accuracy: 0.5)
        let peak = seen.map(\.seen.score).max() ?? 0
        XCTAssertGreaterThan(peak, 0.02, "a 20x12 block is about 1.7 % of the picture")
        XCTAssertLessThan(peak, 0.2)
    }

    /// Each motion region's bounds come with the observation (where an object detector looks), in fractions.
    func testAnObservationSaysWhereTheMotionIs() throws {
        var random = SplitMix(seed: 3)
        // A gradient with a little noise: a picture, not a flat frame.
        var pixels = [UInt8](repeating: 0, count: 160 * 90)
        for i in pixels.indices {
            let level: Int = 40 + (i % 160) / 2 + Int(random.next() % 6)
            pixels[i] = UInt8(level)
        }
        let background = try XCTUnwrap(GrayFrame(width: 160, height: 90, pixels: pixels))
        var moved = background
        for y in 40..<52 { for x in 100..<120 { moved[x, y] = 140 } }
        var detector = MotionDetector()
        _ = detector.observe(background, at: 0)
        _ = detector.observe(background, at: 0.2)
        let seen = detector.observe(moved, at: 0.4)
        let box = try XCTUnwrap(seen.boxes.first, "\(seen)")
        XCTAssertEqual(seen.boxes.count, 1)
        XCTAssertEqual(box.x * 160, 100, accuracy: 3)
        XCTAssertEqual(box.y * 90, 40, accuracy: 3)
        XCTAssertEqual(box.width * 160, 20, accuracy: 6)
        XCTAssertEqual(box.height * 90, 12, accuracy: 6)
        XCTAssertEqual(detector.observe(background, at: 0.6).boxes.count, 0, "no motion, no box")
    }

    func testABlobEnteringAZoneIsAnEventOfThatZoneAndNothingBefore() throws {
        let scene = MotionSceneCatalog.intoZone
        let seen = scene.make(7).run(scene.settings)
        XCTAssertEqual(seen.starts.count, 1, "\(seen.starts)")
        XCTAssertEqual(seen.starts.first ?? -1, 3.25, accuracy: 0.5)
        XCTAssertTrue(
            seen.filter { $0.time < 3 }.allSatisfy { $0.seen.score == 0 }, "motion outside the zone does not count")
        XCTAssertTrue(seen.filter { $0.seen.score > 0 }.allSatisfy { $0.seen.zones == ["door"] })
    }

    func testAWholeNewPictureRecalibratesInsteadOfFiring() {
        // At t = 3 the camera switches: another scene (the still turned upside down).
        var other = MotionScene.still(seed: 99)
        other.values.reverse()
        let scene = MotionScene { canvas, t, _ in
            if t >= 3 { canvas = other }
        }
        let seen = scene.run()
        XCTAssertEqual(seen.starts, [])
        XCTAssertTrue(
            seen.contains { $0.time == 3 && $0.seen.recalibrated }, "the switch's frame became the background")
        XCTAssertTrue(seen.filter { $0.time > 3 }.allSatisfy { $0.seen.score == 0 })
    }

    /// Seen in the daemon: the camera's first frames follow the selector's black filler; the picture arriving (and
    /// one going black again) is a new picture, not motion. A whole picture on the flat filler changed only about
    /// half of the normalised pixels, under the 80 % that means a new picture.
    func testAPictureAfterNoneAndNoneAfterAPictureRecalibrate() {
        let black = Canvas(width: 320, height: 180, values: [Float](repeating: 16, count: 320 * 180))
        let scene = MotionScene(seconds: 12) { canvas, t, _ in
            if t < 2 || t >= 8 { canvas = black }
        }
        let seen = scene.run()
        XCTAssertEqual(seen.starts, [], "no event")
        XCTAssertTrue(seen.contains { $0.time == 2 && $0.seen.recalibrated }, "the first picture became the background")
        XCTAssertTrue(seen.contains { $0.time == 8 && $0.seen.recalibrated }, "the black frame became the background")
        XCTAssertTrue(seen.filter { $0.time > 2 }.allSatisfy { $0.seen.score == 0 })
    }

    func testMotionMustLastTheMinimumDuration() {
        // The same block appears for 0.4 s, then for 1 s: only the second is an event, with min_duration_s 0.5.
        let scene = MotionScene { canvas, t, _ in
            if (2..<2.4).contains(t) || (5..<6).contains(t) {
                canvas.fill(x: 100 + t * 20, y: 60, w: 30, h: 30, level: 10)
            }
        }
        let seen = scene.run()
        XCTAssertEqual(seen.starts.count, 1, "\(seen.starts)")
        XCTAssertEqual(seen.starts.first ?? -1, 5.0, accuracy: 0.21)
    }

    /// `[motion] fps = 1`, or a board that analyses fewer frames than asked: frames further apart than the gap a
    /// run survives (0.5 s) still make one run when each of them sees motion; a frame without motion still breaks it.
    func testSparseFramesWithMotionAreARunAndAQuietFrameBreaksIt() {
        let moving = MotionScene(seconds: 12, fps: 1) { canvas, t, _ in
            if t >= 3 && t < 7 { canvas.fill(x: 20 + t * 25, y: 60, w: 30, h: 30, level: 10) }
        }
        let seen = moving.run()
        XCTAssertEqual(seen.starts, [3], "two frames a second apart with motion are an event from the first")
        XCTAssertEqual(seen.ends, [6])
        // Motion in every other frame at 1 fps: each run is one frame long, broken by the quiet frame after it.
        let blinking = MotionScene(seconds: 12, fps: 1) { canvas, t, _ in
            if Int(t) % 2 == 1 { canvas.fill(x: 20 + t * 25, y: 60, w: 30, h: 30, level: 10) }
        }
        XCTAssertEqual(blinking.run().starts, [])
    }

    func testTheFirstFrameIsTheBackgroundAndAFrameOfAnotherSizeStartsAgain() {
        var detector = MotionDetector()
        let first = detector.observe(GrayFrame(width: 16, height: 9, level: 100), at: 0)
        XCTAssertTrue(first.recalibrated)
        XCTAssertFalse(detector.observe(GrayFrame(width: 16, height: 9, level: 100), at: 0.2).recalibrated)
        XCTAssertTrue(detector.observe(GrayFrame(width: 32, height: 18, level: 100), at: 0.4).recalibrated)
        detector.reset()
        XCTAssertTrue(
            detector.observe(GrayFrame(width: 32, height: 18, level: 100), at: 0.6).recalibrated,
            "reset forgets the background")
    }

    func testAResetDuringAnEventEndsItAtOnce() {
        var detector = MotionDetector()
        var events: [MotionDetector.Transition] = []
        for frame in MotionSceneCatalog.crossing.make(7).frames() where frame.time <= 4 {
            if let t = detector.observe(frame.frame, at: frame.time).transition { events.append(t) }
        }
        XCTAssertTrue(detector.active)
        XCTAssertEqual(detector.reset(), .ended(at: 4.0))
        XCTAssertFalse(detector.active)
        XCTAssertEqual(events.count, 1)
    }

    func testPolygonsAndFramesRefuseWhatIsNotOne() throws {
        XCTAssertNil(RelativePolygon([.init(0, 0), .init(1, 1)]), "two points")
        XCTAssertNil(RelativePolygon([.init(0, 0), .init(1.5, 0), .init(1, 1)]), "outside the picture")
        XCTAssertNil(GrayFrame(width: 4, height: 4, pixels: [0, 1, 2]))
        XCTAssertNil(GrayFrame(width: 0, height: 4, pixels: []))
        let triangle = try XCTUnwrap(RelativePolygon([.init(0, 0), .init(1, 0), .init(0, 1)]))
        XCTAssertTrue(triangle.contains(x: 0.2, y: 0.2))
        XCTAssertFalse(triangle.contains(x: 0.8, y: 0.8))
        XCTAssertEqual(
            triangle.raster(width: 10, height: 5).filter { $0 }.count, 25,
            "the pixel centres below the diagonal (none on it)")
        XCTAssertEqual(RelativePolygon.whole.raster(width: 7, height: 3).filter { $0 }.count, 21)
    }
}

/// A small seeded generator: the same noise every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
