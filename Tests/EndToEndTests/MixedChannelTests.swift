import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Issue 61's first check: two network cameras and a local one recorded for a minute at once, three channels. The
/// local channel switches between its two cameras halfway while the others record; a SIGKILL at the minute leaves
/// all three clips recoverable, each its own picture (its own size), covering the same minute with no gap.
final class MixedChannelTests: XCTestCase {
    private func config(door: String, yard: String) -> String {
        """
        [[camera]]
        name = "desk"
        source = "test"
        pattern = "smpte"
        [[camera]]
        name = "shelf"
        source = "test"
        pattern = "ball"
        [[camera]]
        name = "door"
        source = "rtsp"
        url = "\(door)"
        [[camera]]
        name = "yard"
        source = "rtsp"
        url = "\(yard)"
        [[channel]]
        name = "room"
        cameras = ["desk", "shelf"]
        [[channel]]
        name = "door"
        cameras = ["door"]
        [[channel]]
        name = "yard"
        cameras = ["yard"]
        """
    }

    func testTwoNetworkCamerasAndALocalOneRecordAMinuteTogetherAndSurviveASigkill() throws {
        let door = try RTSPCameraServer(
            pattern: "ball", options: ["--width", "640", "--height", "360", "--fps", "15", "--gop", "15"])
        let yard = try RTSPCameraServer(
            pattern: "snow", options: ["--width", "352", "--height", "288", "--fps", "10", "--no-audio"])
        try door.start()
        try yard.start()
        let daemon = try DaemonProcess(
            extra: "[video]\nwidth = 320\nheight = 240\nframerate = 10\n",
            cameras: config(door: door.url, yard: yard.url))
        try daemon.start()
        var recording: [String: String] = [:]
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertTrue(try daemon.waitForCamera("door", "active"))
            XCTAssertTrue(try daemon.waitForCamera("yard", "active"))
            let encoders = try daemon.status().channels.map { "\($0.name)=\($0.encoder)" }
            XCTAssertEqual(encoders.dropFirst(), ["door=as-sent", "yard=as-sent"], "the network cameras as sent")
            _ = try daemon.recordStart()
            try daemon.waitUntilRecorded(30)
            XCTAssertEqual(try daemon.switchCamera(.named("shelf")).active, "shelf")
            try daemon.waitUntilRecorded(60)
            for channel in try daemon.status().channels {
                recording[channel.name] = channel.recordingId
                XCTAssertEqual(channel.state, .recording, channel.name)
            }
        }
        XCTAssertEqual(recording.count, 3, "every channel records")
        daemon.stop(signal: SIGKILL)
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            var sizes: [String: [Int]] = [:]
            var created: [Date] = []
            for (channel, id) in recording {
                let info = try daemon.info(id)
                XCTAssertEqual(info.recording.state, .recovered)
                XCTAssertEqual(info.recording.channel, channel)
                created.append(info.recording.createdAt)
                let probe = try MediaProbe(info.recording.path)
                let fault = try probe.firstDecodeOrderFault()
                let errors = try probe.decodeErrors().split(separator: "\n").prefix(3).joined(separator: " | ")
                XCTAssertTrue(errors.isEmpty, "\(channel) decodes: \(fault) \(errors)")  // one line: CI shows the first
                let video = try XCTUnwrap(probe.video)
                sizes[channel] = [video.width ?? 0, video.height ?? 0]
                XCTAssertGreaterThan(video.duration, 57, "\(channel): the minute")
                // No frame missing: no step over 1.5 frame intervals (the room at 10 fps, door at 15, yard at 10).
                let gap = try probe.largestVideoGap()
                let limit = channel == "door" ? 0.1 : 0.15
                XCTAssertLessThanOrEqual(gap.seconds, limit, "\(channel): a hole of \(gap.seconds) s at \(gap.at) s")
            }
            XCTAssertEqual(
                sizes, ["room": [320, 240], "door": [640, 360], "yard": [352, 288]],
                "each its own picture: the channel's, and each network camera's as sent")
            XCTAssertLessThan(
                (created.max() ?? .distantPast).timeIntervalSince(created.min() ?? .distantPast), 3,
                "the same minute")
        }
    }
}
