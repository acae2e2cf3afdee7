import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Sources whose pads appear later (issue 48, part 3): a `pipeline` camera ending in uridecodebin records its picture
/// (a file paced to its timestamps, an RTSP stream as it comes); its sound pad goes to a fakesink without stopping it;
/// `rtspsrc ! rtph264depay …`, the description that never linked (its sound pad, and a ghost taking the depayloader's
/// sink), records too.
final class DynamicPadSourceTests: XCTestCase {
    func testURIDecodeBinOverAFileWithSoundRecordsItsPicture() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appliance-uri-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("camera.mp4").path
        let made = try ProcessOutcome.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=10", "-f", "lavfi",
                "-i", "sine=frequency=440", "-t", "30", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                "-c:a", "aac", "-y", file,
            ], timeout: 120)
        XCTAssertEqual(made.status, 0, made.stderr)
        let daemon = try DaemonProcess(
            extra: "[video]\nwidth = 320\nheight = 240\nframerate = 10\n",
            cameras:
                "[[camera]]\nname = \"file\"\nsource = \"pipeline\"\npipeline = \"uridecodebin uri=file://\(file)\"\n")
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertTrue(try daemon.waitForCamera("file", "active"), "the camera runs: \(daemon.log.suffix(600))")
        let clip = try daemon.recordDecodable(seconds: 3)
        XCTAssertGreaterThan(try ClipPicture.grayLevels(clip, at: 1.5), 20, "the file's picture, not the filler")
        XCTAssertTrue(
            try daemon.cameras().cameras.first { $0.name == "file" }?.state == "active",
            "still active: paced, not run through")
        XCTAssertFalse(daemon.log.contains("not-linked"), daemon.log)
    }

    func testURIDecodeBinAndRTSPSrcOverAnRTSPCameraWithSoundRecordItsPicture() throws {
        let server = try RTSPCameraServer()
        try server.start()
        let cameras = """
            [[camera]]
            name = "uri"
            source = "pipeline"
            pipeline = "uridecodebin uri=\(server.url)"
            [[camera]]
            name = "rtp"
            source = "pipeline"
            pipeline = "rtspsrc location=\(server.url) latency=200 ! rtph264depay ! h264parse ! avdec_h264"
            """
        let daemon = try DaemonProcess(extra: "[video]\nwidth = 320\nheight = 240\nframerate = 10\n", cameras: cameras)
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertTrue(try daemon.waitForCamera("uri", "active"), "uridecodebin over RTSP runs")
            let first = try daemon.recordDecodable(seconds: 3)
            XCTAssertGreaterThan(try ClipPicture.grayLevels(first, at: 1.5), 20, "the camera's picture, not the filler")
            XCTAssertEqual(try daemon.switchCamera(.named("rtp")).active, "rtp")
            let second = try daemon.recordDecodable(seconds: 3)
            XCTAssertGreaterThan(
                try ClipPicture.grayLevels(second, at: 1.5), 20, "rtspsrc ! rtph264depay … records its picture")
            XCTAssertEqual(try daemon.camera("rtp")?.modeReason, "decoded by avdec_h264")
            XCTAssertFalse(daemon.log.contains("not-linked"), "the sound pads went to fakesinks")
            XCTAssertFalse(daemon.log.contains("Delayed linking failed"))
        }
    }
}
