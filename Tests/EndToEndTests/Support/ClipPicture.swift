import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// What a recorded clip shows, read back with ffmpeg.
enum ClipPicture {
    /// How many distinct gray levels the clip's frame at `at` seconds has: a test card (ffmpeg's, videotestsrc's
    /// smpte) has dozens; the appliance's black filler one or two.
    static func grayLevels(_ path: String, at: Double) throws -> Int {
        let frame = try ProcessOutcome.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-ss", "\(at)", "-i", path, "-frames:v", "1", "-f", "rawvideo",
                "-pix_fmt", "gray", "-",
            ], timeout: 60)
        XCTAssertEqual(frame.status, 0, frame.stderr)
        return Set(frame.stdoutData).count
    }

    /// Asserts the clip decodes to its end without a message from ffmpeg.
    static func assertDecodes(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let decoded = try ProcessOutcome.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"], timeout: 120)
        XCTAssertEqual(decoded.status, 0, decoded.stderr, file: file, line: line)
        XCTAssertEqual(decoded.stderr, "", "the clip decodes without a message", file: file, line: line)
    }
}

extension DaemonProcess {
    /// A recording of `seconds` from the active camera: the clip's path, once it decodes without a message.
    func recordDecodable(seconds: Double) throws -> String {
        _ = try recordStart()
        try waitForMoreVideo(seconds)
        let clip = try recordStop()
        try ClipPicture.assertDecodes(clip.path)
        return clip.path
    }

    /// Waits until the camera `name` is in `state` (active, error…); returns whether it was within `timeout`.
    func waitForCamera(_ name: String, _ state: String, timeout: TimeInterval = 20) throws -> Bool {
        try waitFor(timeout) { try cameras().cameras.first { $0.name == name }?.state == state }
    }

    func camera(_ name: String) throws -> CameraReport? { try cameras().cameras.first { $0.name == name } }
}
