import ApplianceProtocol
import Foundation
import XCTest

/// Two channels in the real daemon: `ctl record start` records both side by side, `ctl status` names each, and a
/// SIGKILL in the middle leaves both clips recoverable, each with its own picture size and channel.
final class ChannelCrashTests: XCTestCase {
    func testTwoChannelsRecordTogetherAndBothSurviveASigkill() throws {
        let daemon = try DaemonProcess(
            extra: """
                [video]
                width = 640
                height = 360
                """,
            cameras: """
                [[camera]]
                name = "road"
                source = "test"
                pattern = "smpte"
                [[camera]]
                name = "cabin"
                source = "test"
                pattern = "ball"
                """ + FrontAndRear.channels(front: "road", rear: "cabin"))
        try daemon.start()
        _ = try daemon.recordStart()
        try daemon.waitUntilRecorded(3.0)
        let text = try daemon.ctl(["status"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(text.stdout.contains("channel front: recording "), text.stdout)
        XCTAssertTrue(text.stdout.contains("channel rear: recording "), text.stdout)
        XCTAssertTrue(text.stdout.contains("320x180@30"), text.stdout)
        let cameras = try daemon.ctl(["cameras"])
        XCTAssertEqual(cameras.status, 0, cameras.stderr)
        XCTAssertTrue(cameras.stdout.hasPrefix("CHANNEL"), cameras.stdout)
        XCTAssertTrue(
            cameras.stdout.split(separator: "\n").contains { $0.hasPrefix("rear") && $0.contains("cabin") },
            cameras.stdout)
        XCTAssertEqual(try jpegSize(try daemon.snapshot().path).width, 640, "the first channel's picture")
        XCTAssertEqual(try jpegSize(try daemon.snapshot(channel: "rear").path).width, 320, "the rear channel's")
        let snapshot = try daemon.ctl(["snapshot", "--channel", "rear"])
        XCTAssertEqual(snapshot.status, 0, snapshot.stderr)
        XCTAssertTrue(snapshot.stdout.contains("(320x180)"), snapshot.stdout)
        let unknown = try daemon.ctl(["snapshot", "--channel", "side"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.stderr.contains("no channel named \"side\" (channels: front, rear)"), unknown.stderr)
        let recording = try daemon.status().channels.compactMap(\.recordingId)
        XCTAssertEqual(recording.count, 2, "both channels record")
        daemon.stop(signal: SIGKILL)
        XCTAssertEqual(Set(daemon.partialFiles()), Set(recording.map { "\($0).mp4" }))

        try daemon.start()
        defer { daemon.stop() }
        XCTAssertEqual(daemon.partialFiles(), [])
        var widths: [String: Int] = [:]
        for id in recording {
            let info = try daemon.info(id)
            let probe = try MediaProbe(info.recording.path)
            XCTAssertEqual(try probe.decodeErrors(), "", "\(id) decodes")
            XCTAssertGreaterThan(try XCTUnwrap(probe.video).duration, 1.5, "\(id) kept its picture")
            widths[info.recording.channel ?? "?"] = probe.video?.width
            XCTAssertEqual(info.recording.state, .recovered)
        }
        XCTAssertEqual(widths, ["front": 640, "rear": 320], "each channel's own picture, recovered")
        let kept = try daemon.status().channels
        XCTAssertEqual(kept.map(\.clips), [1, 1], "each channel says what it keeps")
        XCTAssertTrue(kept.allSatisfy { ($0.storedBytes ?? 0) > 0 && $0.oldestAt != nil }, "\(kept)")
        let statusText = try daemon.ctl(["status"]).stdout
        XCTAssertTrue(
            statusText.contains("channel rear: idle") && statusText.contains("; keeps 1 clips, 0.0 GB since "),
            statusText)
        let rear = try daemon.ctl(["list", "--channel", "rear"])
        XCTAssertEqual(rear.status, 0, rear.stderr)
        XCTAssertTrue(rear.stdout.contains("(1 recordings)"), rear.stdout)
        let both = try daemon.ctl(["list", "--channel", "rear", "--grouped"])
        XCTAssertNotEqual(both.status, 0, "--channel and --grouped exclude each other")
        XCTAssertTrue(both.stderr.contains("--channel and --grouped/--group exclude each other"), both.stderr)
    }
}
