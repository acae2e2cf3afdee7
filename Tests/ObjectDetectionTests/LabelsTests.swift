import Foundation
import XCTest

@testable import ObjectDetection

final class LabelsTests: XCTestCase {
    func testCOCOHasItsEightyClassesInTheModelsOrder() {
        XCTAssertEqual(Labels.coco.count, 80)
        XCTAssertEqual(Set(Labels.coco).count, 80)
        XCTAssertEqual(Labels.coco[0], "person")
        XCTAssertEqual(Labels.coco[2], "car")
        XCTAssertEqual(Labels.coco[16], "dog")
        XCTAssertEqual(Labels.coco[79], "toothbrush")
    }

    func testALabelsFileAndItsBadForms() throws {
        let path = NSTemporaryDirectory() + "labels-\(UUID().uuidString.prefix(8)).names"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "# my model\nperson\n\n  delivery van \r\ncat\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertEqual(try Labels.read(path: path), ["person", "delivery van", "cat"])
        try "\n# nothing\n".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try Labels.read(path: path)) { XCTAssertTrue("\($0)".contains("names no class"), "\($0)") }
        XCTAssertThrowsError(try Labels.read(path: path + ".missing")) {
            XCTAssertTrue("\($0)".hasPrefix("cannot read the labels file"), "\($0)")
        }
    }
}
