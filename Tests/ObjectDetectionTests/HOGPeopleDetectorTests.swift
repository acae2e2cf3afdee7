import Foundation
import MotionAndSound
import TestSupport
import XCTest

@testable import ObjectDetection

/// OpenCV's HOG people detector on real footage (opencv-doc's clips, decoded by ffmpeg at their own size): people
/// walking are found in most seconds, a tree in the wind never, and pictures it cannot use are answered, not crashed
/// on.
final class HOGPeopleDetectorTests: XCTestCase {
    static let clips = "/usr/share/doc/opencv-doc/examples/data"

    /// The clip's frames at `fps`, gray, at its own size.
    static func frames(_ name: String, width: Int, height: Int, fps: Double) throws -> [GrayFrame] {
        let decoded = try ProcessOutcome.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", "\(clips)/\(name)", "-vf", "fps=\(fps),format=gray",
                "-f", "rawvideo", "-",
            ], timeout: 120)
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        let size = width * height
        let bytes = [UInt8](decoded.stdoutData)
        return stride(from: 0, to: bytes.count - size + 1, by: size).compactMap {
            GrayFrame(width: width, height: height, pixels: Array(bytes[$0..<$0 + size]))
        }
    }

    func testPeopleWalkingAreFoundInMostSeconds() throws {
        let detector = try HOGPeopleDetector()
        let frames = try Self.frames("vtest.avi", width: 768, height: 576, fps: 1)
        XCTAssertGreaterThanOrEqual(frames.count, 79, "79.5 s at one frame a second")
        var withPerson = 0
        var tracker = ObjectTracker()
        var started: [ObjectTracker.Change] = []
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        for (second, frame) in frames.enumerated() {
            let all = try detector.detect(frame)
            started += tracker.run(all, at: t0.addingTimeInterval(Double(second))).filter {
                if case .started = $0 { true } else { false }
            }
            let people = all.filter { $0.score > 0.5 }
            for person in people {
                XCTAssertEqual(person.label, "person")
                XCTAssertGreaterThanOrEqual(person.height, 128, "HOG's window is 64x128: nothing smaller")
                XCTAssertTrue(person.x >= -32 && person.x + person.width <= 768 + 32, "\(person)")
            }
            if !people.isEmpty { withPerson += 1 }
        }
        print("HOG people detector: a person (score > 0.5) in \(withPerson) of \(frames.count) seconds of vtest.avi")
        // The tracker confirms one person from the first second on and, people being there throughout, never ends it.
        if case .started(let label, let at, _)? = started.first {
            XCTAssertEqual(label, "person")
            XCTAssertLessThanOrEqual(at.timeIntervalSince(t0), 2)
        } else {
            XCTFail("no person started: \(started)")
        }
        XCTAssertEqual(started.count, 1, "\(started)")
        // People cross the road in every second of this clip.
        XCTAssertGreaterThan(Double(withPerson) / Double(frames.count), 0.6, "\(withPerson) of \(frames.count) seconds")
    }

    /// At the clip's own 320x240 the tree in the wind has no person (upscaled to 640 px wide, HOG scored one above
    /// 0.5 in 49 of 148 frames: why the detector never upscales).
    func testATreeInTheWindIsNoPerson() throws {
        let detector = try HOGPeopleDetector()
        let frames = try Self.frames("tree.avi", width: 320, height: 240, fps: 5)
        XCTAssertGreaterThan(frames.count, 140)
        let falsePeople = try frames.filter { try !detector.detect($0).filter { $0.score > 0.5 }.isEmpty }.count
        print("HOG people detector: a person (score > 0.5) in \(falsePeople) of \(frames.count) frames of tree.avi")
        XCTAssertEqual(falsePeople, 0, "frames of a tree with a 'person'")
    }

    func testPicturesItCannotUseAreAnsweredNotCrashedOn() throws {
        let detector = try HOGPeopleDetector()
        XCTAssertEqual(
            try detector.detect(GrayFrame(width: 32, height: 200, level: 128)), [], "narrower than the window")
        XCTAssertEqual(
            try detector.detect(GrayFrame(width: 200, height: 64, level: 128)), [], "shorter than the window")
        XCTAssertEqual(try detector.detect(GrayFrame(width: 320, height: 240, level: 0)), [], "black")
        var generator = SystemRandomNumberGenerator()
        let noise = GrayFrame(
            width: 640, height: 480, pixels: (0..<640 * 480).map { _ in UInt8.random(in: 0...255, using: &generator) })!
        XCTAssertNoThrow(try detector.detect(noise))
    }
}
