import ApplianceProtocol
import Foundation
import XCTest

/// Signals during a recording: SIGTERM finalises; SIGKILL leaves a playable partial file that restart recovers.
final class CrashTests: XCTestCase {
    func testSigtermDuringRecordingGivesACompleteFile() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        _ = try daemon.recordStart()
        try daemon.waitUntilRecorded(2.0)
        XCTAssertEqual(daemon.stop(signal: SIGTERM), 0, daemon.log)
        let files = daemon.recordings()
        XCTAssertEqual(files.count, 1, daemon.log)
        XCTAssertEqual(daemon.partialFiles(), [])
        let probe = try MediaProbe(try XCTUnwrap(files.first))
        XCTAssertEqual(try XCTUnwrap(probe.video).duration, 2.0, accuracy: 0.3)
        XCTAssertNotNil(probe.audio)
        XCTAssertEqual(try probe.decodeErrors(), "")
        XCTAssertFalse(FileManager.default.fileExists(atPath: daemon.socketPath), "socket removed on exit")
    }

    func testSigkillDuringRecordingIsRecoveredOnRestart() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let started = try daemon.recordStart()
        let id = started.id
        try daemon.waitUntilRecorded(4.0)
        daemon.stop(signal: SIGKILL)
        XCTAssertEqual(daemon.partialFiles(), ["\(id).mp4"])

        // The killed daemon's socket file is stale; the new daemon must take it over.
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertEqual(daemon.partialFiles(), [])
        let files = daemon.recordings()
        XCTAssertEqual(files.count, 1)
        let file = try XCTUnwrap(files.first)
        XCTAssertTrue(file.hasSuffix("/\(id).mp4"))
        let probe = try MediaProbe(file)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(probe.video).duration, 2.5, "at most sync_interval_s + one GOP lost")
        XCTAssertEqual(try probe.decodeErrors(), "")
        let thumbnail = daemon.dataDir + "/thumbnails/\(id).jpg"
        XCTAssertLessThanOrEqual(try jpegSize(thumbnail).width, 320)
        XCTAssertTrue(daemon.log.contains("recovered interrupted recording"), daemon.log)
    }
}
