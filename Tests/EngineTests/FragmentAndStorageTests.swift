import ApplianceBase
import Foundation
import XCTest

@testable import Engine

final class FragmentAndStorageTests: XCTestCase {
    func testPlaceholdersAreFilledAndUnknownOnesNamed() throws {
        XCTAssertEqual(try FragmentLibrary.substitute("a ${x} b ${y}", ["x": "1", "y": "2"], label: "f"), "a 1 b 2")
        XCTAssertThrowsError(try FragmentLibrary.substitute("a ${nope}", ["x": "1"], label: "encoders/e.gst")) {
            error in
            XCTAssertTrue("\(error)".contains("encoders/e.gst"), "\(error)")
            XCTAssertTrue("\(error)".contains("${nope}"), "\(error)")
        }
        XCTAssertThrowsError(try FragmentLibrary.substitute("a ${open", [:], label: "f"))
    }

    func testDescriptionsEndingInCapsParse() throws {
        // gst_parse makes a capsfilter only between two elements; the usual way to pin a camera's mode ends in caps.
        for text in [
            "videotestsrc ! video/x-raw,width=320,height=240", "videotestsrc ! video/x-raw, format=(string)I420 ",
            "videotestsrc ! videoconvert ! video/x-raw,format=I420 ! videoscale ! video/x-raw,width=160",
        ] {
            XCTAssertNoThrow(try FragmentLibrary.parse(text, label: "camera 'x' pipeline", binName: "source"), text)
        }
        XCTAssertThrowsError(
            try FragmentLibrary.parse("videotestsrc ! nosuchelement", label: "camera 'x' pipeline", binName: "s")
        ) { error in
            XCTAssertTrue("\(error)".contains("nosuchelement"), "the real error is kept: \(error)")
        }
        XCTAssertThrowsError(try FragmentLibrary.parse("videotestsrc !", label: "camera 'x' pipeline", binName: "s"))
    }

    func testTheRepositoryFragmentsAreFoundAndFilled() throws {
        let library = try FragmentLibrary.locate(configured: "")
        let (text, label) = try library.load(
            "encoders", "x264", ["speed_preset": "veryfast", "bitrate_kbps": "4000", "keyframe_frames": "30"])
        XCTAssertEqual(label, "encoders/x264.gst")
        XCTAssertTrue(text.contains("key-int-max=30"), text)
        XCTAssertThrowsError(try library.load("encoders", "nope", [:])) { error in
            XCTAssertTrue("\(error)".contains("x264"), "lists the available fragments: \(error)")
        }
        XCTAssertThrowsError(try FragmentLibrary.locate(configured: "/nonexistent/pipelines"))
    }

    func testDataDirectoryLayoutAndDurableCommit() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dd-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let data = try DataDirectory(path: root)
        for folder in [data.partialDir, data.recordingsDir, data.thumbnailsDir, data.snapshotsDir] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: folder), folder)
        }
        let date = DateComponents(calendar: .current, year: 2026, month: 3, day: 7, hour: 12).date!
        XCTAssertEqual(data.finalPath(id: "abc", date: date), data.recordingsDir + "/2026/03/07/abc.mp4")
        XCTAssertTrue(FileManager.default.createFile(atPath: data.partialPath(id: "abc"), contents: Data("data".utf8)))
        XCTAssertEqual(data.partialFiles(), [data.partialPath(id: "abc")])
        try data.commit(data.partialPath(id: "abc"), to: data.finalPath(id: "abc", date: date))
        XCTAssertEqual(data.partialFiles(), [])
        XCTAssertEqual(try String(contentsOfFile: data.finalPath(id: "abc", date: date), encoding: .utf8), "data")
    }

    func testDataDirectoryThatCannotBeCreatedIsAClearError() {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("file-\(UUID())").path
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: file) }
        XCTAssertThrowsError(try DataDirectory(path: file + "/data")) { error in
            XCTAssertTrue("\(error)".hasPrefix("data dir "), "\(error)")
        }
    }
}
