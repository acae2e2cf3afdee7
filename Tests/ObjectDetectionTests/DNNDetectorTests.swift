import Foundation
import MotionAndSound
import TestSupport
import XCTest

@testable import ObjectDetection

/// A model the test makes (make_model.py, with Debian's python3-onnx) through OpenCV's real DNN runtime: loading,
/// the picture's scaling, the output's decoding, NMS and the labels; and what a bad model gets.
final class DNNDetectorTests: XCTestCase {
    private var folder = ""

    override func setUp() {
        folder = NSTemporaryDirectory() + "objects-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    private func makeModel(_ kind: String) throws -> String {
        let path = folder + "/\(kind).onnx"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("make_model.py")
            .path
        let made = try ProcessOutcome.run("/usr/bin/python3", [script, kind, path], timeout: 60)
        XCTAssertEqual(made.status, 0, made.stderr)
        return path
    }

    func testAModelMadeHereLoadsAndItsDetectionsComeOutRightThroughOpenCV() throws {
        let settings = DNNDetector.Settings(output: .yolo, labels: ["person", "car"], inputWidth: 64, inputHeight: 64)
        let detector = try DNNDetector(model: try makeModel("yolo"), settings: settings)
        // White: objectness 1 (the picture's mean, scaled by 1/255), so row 0 at 0.9; row 1 (0.72, one pixel off) is
        // the same object and goes to NMS. The box comes back in the frame's pixels (128x96 from the model's 64x64).
        let found = try detector.detect(GrayFrame(width: 128, height: 96, level: 255))
        XCTAssertEqual(found.count, 1, "\(found)")
        let person = try XCTUnwrap(found.first)
        XCTAssertEqual(person.label, "person")
        XCTAssertEqual(person.score, 0.9, accuracy: 0.01)
        XCTAssertEqual(person.x, 64 - 20, accuracy: 0.01)
        XCTAssertEqual(person.y, 48 - 30, accuracy: 0.01)
        XCTAssertEqual(person.width, 40, accuracy: 0.01)
        XCTAssertEqual(person.height, 60, accuracy: 0.01)
        // Black: objectness 0, nothing; mid gray: 0.5 × 0.9 = 0.45, under the 0.5 a detection needs.
        XCTAssertEqual(try detector.detect(GrayFrame(width: 128, height: 96, level: 0)), [])
        XCTAssertEqual(try detector.detect(GrayFrame(width: 128, height: 96, level: 128)), [])
        // Read as another format, the same output is rows that do not fit: nothing, not a crash.
        let misread = try DNNDetector(
            model: try makeModel("yolo"),
            settings: .init(output: .ssd, labels: ["person"], inputWidth: 64, inputHeight: 64))
        XCTAssertEqual(try misread.detect(GrayFrame(width: 128, height: 96, level: 255)), [])
    }

    /// Colour reaches the network as R, G, B (what models are trained on) from the B, G, R picture the branch gives.
    func testColourReachesTheNetworkInRGBOrder() throws {
        let settings = DNNDetector.Settings(output: .yolo, labels: ["person", "car"], inputWidth: 64, inputHeight: 64)
        let detector = try DNNDetector(model: try makeModel("red"), settings: settings)
        func solid(_ b: UInt8, _ g: UInt8, _ r: UInt8) -> Picture {
            Picture(width: 96, height: 64, channels: 3, pixels: (0..<(96 * 64)).flatMap { _ in [b, g, r] })!
        }
        XCTAssertEqual(try detector.detect(solid(0, 0, 255)).first?.score ?? 0, 0.9, accuracy: 0.01, "red")
        XCTAssertEqual(try detector.detect(solid(255, 0, 0)), [], "blue")
        XCTAssertEqual(try detector.detect(solid(0, 255, 0)), [], "green")
        XCTAssertEqual(try detector.detect(GrayFrame(width: 96, height: 64, level: 255)).count, 1, "white, from gray")
    }

    func testAMissingOrForeignModelIsOneLine() throws {
        let settings = DNNDetector.Settings(output: .yolo, labels: ["person"], inputWidth: 64, inputHeight: 64)
        XCTAssertThrowsError(try DNNDetector(model: folder + "/none.onnx", settings: settings)) {
            XCTAssertEqual("\($0)", "cannot read the model \(folder)/none.onnx")
        }
        let garbage = folder + "/garbage.onnx"
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }).write(
            to: URL(fileURLWithPath: garbage))
        XCTAssertThrowsError(try DNNDetector(model: garbage, settings: settings)) { error in
            XCTAssertTrue("\(error)".hasPrefix("OpenCV cannot load the model \(garbage): "), "\(error)")
            XCTAssertFalse("\(error)".contains("\n"), "one line: \(error)")
        }
    }

    func testSSDRowsAndGarbageRows() {
        // [1, 1, 3, 7]: a person (COCO id 1) at 0.8, a row with NaN, a class past the labels.
        let values: [Float] = [
            0, 1, 0.8, 0.25, 0.5, 0.75, 1.0,
            0, 1, .nan, 0, 0, 1, 1,
            0, 9, 0.9, 0, 0, 1, 1,
        ]
        let found = ModelOutput.ssd.decode(
            values, shape: [1, 1, 3, 7], labels: ["person", "bicycle"], inputWidth: 300, inputHeight: 300,
            frameWidth: 200, frameHeight: 100, minScore: 0.5)
        XCTAssertEqual(
            found, [ObjectDetection(label: "person", score: Double(Float(0.8)), x: 50, y: 50, width: 100, height: 50)])
        XCTAssertEqual(
            ModelOutput.yolo.decode(
                [1, 2, 3], shape: [1, 2, 7], labels: ["a"], inputWidth: 1, inputHeight: 1,
                frameWidth: 1, frameHeight: 1, minScore: 0), [], "a shape that does not match the values")
    }

    /// Darknet YOLO through OpenCV: boxes as fractions of the picture (whatever the input size), class scores already
    /// weighed by objectness.
    func testDarknetRows() {
        // [2, 7]: a car (class 1) at 0.75 centred at (0.5, 0.25), 0.2 x 0.1 of the picture; a row under the score.
        let values: [Float] = [
            0.5, 0.25, 0.2, 0.1, 0.9, 0.05, 0.75,
            0.1, 0.1, 0.1, 0.1, 0.3, 0.2, 0.1,
        ]
        let found = ModelOutput.darknet.decode(
            values, shape: [2, 7], labels: ["person", "car"], inputWidth: 416, inputHeight: 416,
            frameWidth: 200, frameHeight: 100, minScore: 0.5)
        XCTAssertEqual(found.count, 1)
        let car = found[0]
        XCTAssertEqual(car.label, "car")
        XCTAssertEqual(car.score, 0.75, accuracy: 1e-6)
        XCTAssertEqual([car.x, car.y, car.width, car.height].map { ($0 * 1000).rounded() / 1000 }, [80, 20, 40, 10])
    }

    func testNonMaximumSuppressionKeepsTheBestOfEachLabel() {
        let a = ObjectDetection(label: "person", score: 0.9, x: 0, y: 0, width: 10, height: 20)
        let b = ObjectDetection(label: "person", score: 0.7, x: 1, y: 1, width: 10, height: 20)
        let c = ObjectDetection(label: "car", score: 0.6, x: 1, y: 1, width: 10, height: 20)
        let d = ObjectDetection(label: "person", score: 0.8, x: 50, y: 0, width: 10, height: 20)
        XCTAssertEqual(NonMaximumSuppression.apply([b, c, a, d], maxOverlap: 0.45), [a, d, c])
    }
}
