import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Sources whose pads appear later (issue 48, part 3): a `pipeline` camera ending in uridecodebin records its picture,
/// paced to its timestamps; its sound pad goes to a fakesink without stopping it.
final class DynamicPadSourceTests: XCTestCase {
    /// A recording of `seconds` from the daemon's active camera: the clip's path once it decodes without a message.
    private func record(_ daemon: DaemonProcess, seconds: Double) throws -> String {
        _ = try daemon.recordStart()
        try daemon.waitForMoreVideo(seconds)
        let clip = try daemon.recordStop()
        let decoded = try ProcessOutcome.run("/usr/bin/ffmpeg", ["-v", "error", "-i", clip.path, "-f", "null", "-"], timeout: 60)
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        XCTAssertEqual(decoded.stderr, "", "the clip decodes without a message")
        return clip.path
    }

    /// How many distinct gray levels the clip's frame at `at` seconds has: ffmpeg's test card has dozens; the filler
    /// (one colour) has one or two.
    private func grayLevels(_ path: String, at: Double) throws -> Int {
        let frame = try ProcessOutcome.run("/usr/bin/ffmpeg", ["-v", "error", "-ss", "\(at)", "-i", path, "-frames:v", "1", "-f", "rawvideo",
                                                               "-pix_fmt", "gray", "-"], timeout: 60)
        XCTAssertEqual(frame.status, 0, frame.stderr)
        return Set(frame.stdoutData).count
    }

    private func activeCamera(_ daemon: DaemonProcess, _ name: String) throws -> Bool {
        try daemon.waitFor(20) { try daemon.cameras().cameras.first { $0.name == name }?.state == "active" }
    }

    func testURIDecodeBinOverAFileWithSoundRecordsItsPicture() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appliance-uri-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("camera.mp4").path
        let made = try ProcessOutcome.run("/usr/bin/ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x240:rate=10", "-f", "lavfi",
                                                              "-i", "sine=frequency=440", "-t", "30", "-c:v", "libx264", "-pix_fmt", "yuv420p",
                                                              "-c:a", "aac", "-y", file], timeout: 120)
        XCTAssertEqual(made.status, 0, made.stderr)
        let daemon = try DaemonProcess(extra: "[video]\nwidth = 320\nheight = 240\nframerate = 10\n",
                                       cameras: "[[camera]]\nname = \"file\"\nsource = \"pipeline\"\npipeline = \"uridecodebin uri=file://\(file)\"\n")
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertTrue(try activeCamera(daemon, "file"), "the camera runs: \(daemon.log.suffix(600))")
        let clip = try record(daemon, seconds: 3)
        XCTAssertGreaterThan(try grayLevels(clip, at: 1.5), 20, "the file's picture, not the filler")
        XCTAssertTrue(try daemon.cameras().cameras.first { $0.name == "file" }?.state == "active", "still active: paced, not run through")
        XCTAssertFalse(daemon.log.contains("not-linked"), daemon.log)
    }
}
