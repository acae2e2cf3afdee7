import ApplianceProtocol
import Engine
import Foundation
import TestSupport
import XCTest

/// A channel whose only camera is a network camera stores the camera's own H.264 (issue 61): no decode for the
/// recording, no encoder, the camera's size, rate and keyframes, while the pictures the appliance needs (the
/// thumbnail) are decoded from its keyframes. `[video] passthrough = false` encodes it again as before. The camera is
/// gst-rtsp-server from Python (Tests/RTSPCamera/rtsp_camera.py) at a size, rate and GOP of its own.
final class PassthroughTests: XCTestCase {
    /// The channel's own picture, which a stream stored as sent does not take.
    private let channelVideo = "[video]\nwidth = 320\nheight = 240\nframerate = 10\n"

    private func networkCamera(_ url: String) -> String {
        """
        [[camera]]
        name = "yard"
        source = "rtsp"
        url = "\(url)"
        """
    }

    /// 640x360 at 15 frames a second, a keyframe every 30 frames (2 s): none of it the channel's.
    private func startCamera() throws -> RTSPCameraServer {
        let server = try RTSPCameraServer(options: ["--width", "640", "--height", "360", "--fps", "15", "--gop", "30"])
        try server.start()
        return server
    }

    func testANetworkCameraIsStoredAsItSendsIt() throws {
        let server = try startCamera()
        let daemon = try DaemonProcess(extra: channelVideo, cameras: networkCamera(server.url))
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertTrue(try daemon.waitForCamera("yard", "active"))
            XCTAssertTrue(
                try daemon.waitFor(15) {
                    try daemon.camera("yard")?.modeReason?.contains("GOP 2.0 s (30 frames)") == true
                },
                "ctl cameras says the GOP the camera sends")
            let reason = try XCTUnwrap(daemon.camera("yard")?.modeReason)
            XCTAssertTrue(reason.hasPrefix("stored as sent, GOP 2.0 s (30 frames), pictures decoded by "), reason)
            XCTAssertTrue(try daemon.ctl(["cameras"]).stdout.contains("stored as sent"))

            XCTAssertEqual(try daemon.status().encoder, "as-sent", "no encoder runs for it")
            // What the camera sends, as gst-launch stores it (rtspsrc ! rtph264depay ! h264parse ! mp4mux) meanwhile.
            let reference = try ReferenceRecorder(url: server.url)
            _ = try daemon.recordStart()
            try daemon.waitForMoreVideo(5)
            let clip = try daemon.recordStop()
            let sent = Set(try reference.stop().videoPacketHashes().map(\.hash))
            let stored = try MediaProbe(clip.path).videoPacketHashes().filter { !$0.keyframe }
            XCTAssertGreaterThan(stored.count, 40)
            // Keyframes carry the parameter sets the parser puts in front of them; every other unit is byte for byte
            // one the camera sent.
            XCTAssertEqual(stored.filter { !sent.contains($0.hash) }.count, 0, "units not as the camera sent them")
            try ClipPicture.assertDecodes(clip.path)
            let probe = try MediaProbe(clip.path)
            let video = try XCTUnwrap(probe.video)
            XCTAssertEqual(video.codec, "h264")
            XCTAssertEqual(video.width, 640, "the camera's own size, not the channel's 320x240")
            XCTAssertEqual(video.height, 360)
            XCTAssertEqual(
                Double(video.frames) / video.duration, 15, accuracy: 1, "the camera's rate, not the channel's 10")
            let audio = try XCTUnwrap(probe.audio, "the microphone's sound")
            XCTAssertEqual(audio.startTime, video.startTime, accuracy: 0.05, "the sound starts with the first keyframe")
            XCTAssertEqual(audio.duration, video.duration, accuracy: 0.2)
            let keys = try probe.keyframeTimes()
            XCTAssertGreaterThanOrEqual(keys.count, 2, "\(keys)")
            XCTAssertEqual(keys.first ?? -1, video.startTime, accuracy: 0.001, "the clip starts on a keyframe")
            for (a, b) in zip(keys, keys.dropFirst()) {
                XCTAssertEqual(b - a, 2.0, accuracy: 0.05, "only the camera's keyframes, 2 s apart: \(keys)")
            }
            XCTAssertGreaterThan(try ClipPicture.grayLevels(clip.path, at: 1.0), 20, "the camera's picture")
            let thumbnail = try XCTUnwrap(clip.thumbnail, "a thumbnail from a decoded keyframe")
            XCTAssertGreaterThan(try jpegSize(thumbnail).width, 0)
            let previews = ScrubPack.entries(path: thumbnail.replacingOccurrences(of: ".jpg", with: ".scrub"))
            XCTAssertGreaterThanOrEqual(previews.count, 2, "scrubbing previews from the keyframes, one each 2 s")
            try assertNothingRepeatsPictures(daemon)
        }
    }

    /// The decoded keyframes go on as they come, never repeated up to the channel's rate, and the black filler
    /// (which feeds no encoder here) makes one picture a second, not the channel's ten.
    private func assertNothingRepeatsPictures(_ daemon: DaemonProcess) throws {
        XCTAssertEqual(try daemon.camera("yard")?.framesRepeated, 0, "the camera's pictures repeated")
        let filler = #"appliance_frames_in_total{camera="filler"}"#
        let before = try MetricsTests.parse(try daemon.ctl(["metrics"]))[filler] ?? 0
        let began = Date()
        // The window the pictures are counted in: two more of the camera's keyframes decoded (a GOP is 2 s).
        let keyframes = try daemon.camera("yard")?.framesIn ?? 0
        XCTAssertTrue(try daemon.waitFor(20) { (try daemon.camera("yard")?.framesIn ?? 0) >= keyframes + 2 })
        let after = try MetricsTests.parse(try daemon.ctl(["metrics"]))[filler] ?? 0
        let seconds = Date().timeIntervalSince(began)
        XCTAssertLessThanOrEqual(after - before, seconds + 2, "the filler's pictures in \(seconds) s")
        XCTAssertGreaterThan(after, 0, "the filler runs")
    }

    /// Loop segments of 3 s from a camera with a keyframe every 2 s: each segment is whole GOPs of the camera's,
    /// starting on its keyframe, and the segments in order hold every unit the camera sent in that time, once.
    func testLoopSegmentsAreCutOnTheCamerasKeyframesAndLoseNoUnit() throws {
        let server = try RTSPCameraServer(
            pattern: "ball", options: ["--width", "640", "--height", "360", "--fps", "15", "--gop", "30"])
        try server.start()
        let daemon = try DaemonProcess(
            extra: channelVideo + "[recording]\nsegment_s = 3.0\n", cameras: networkCamera(server.url))
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertTrue(try daemon.waitForCamera("yard", "active"))
            let reference = try ReferenceRecorder(url: server.url)
            let started = try daemon.recordStart()
            try daemon.waitUntilElapsed(13)
            _ = try daemon.recordStop()
            let sent = try reference.stop().videoPacketHashes().filter { !$0.keyframe }.map(\.hash)
            let segments = try daemon.list(group: started.id, perPage: 20).items.sorted {
                ($0.segment ?? 0) < ($1.segment ?? 0)
            }
            XCTAssertGreaterThanOrEqual(segments.count, 3, "13 s in segments of 3 s cut on 2 s GOPs")
            var stored: [String] = []
            for (index, segment) in segments.enumerated() {
                let probe = try MediaProbe(segment.path)
                XCTAssertEqual(try probe.decodeErrors(), "", segment.path)
                let units = try probe.videoPacketHashes()
                XCTAssertEqual(units.first?.keyframe, true, "segment \(index + 1) starts on the camera's keyframe")
                if index < segments.count - 1 {
                    XCTAssertEqual(units.count % 30, 0, "segment \(index + 1): whole GOPs, \(units.count) units")
                }
                stored += units.filter { !$0.keyframe }.map(\.hash)
            }
            let from = try XCTUnwrap(stored.first.flatMap { sent.firstIndex(of: $0) }, "the units are the camera's")
            XCTAssertEqual(
                Array(sent[from..<min(sent.count, from + stored.count)]), stored,
                "every unit the camera sent, once and in order, across the segments")
        }
    }

    func testPassthroughOffEncodesTheChannelsOwnPicture() throws {
        let server = try startCamera()
        let daemon = try DaemonProcess(
            extra: channelVideo + "passthrough = false\n", cameras: networkCamera(server.url))
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertTrue(try daemon.waitForCamera("yard", "active"))
            let reason = try XCTUnwrap(daemon.camera("yard")?.modeReason)
            XCTAssertTrue(reason.hasPrefix("decoded by "), reason)
            let clip = try daemon.recordDecodable(seconds: 3)
            let video = try XCTUnwrap(try MediaProbe(clip).video)
            XCTAssertEqual(video.width, 320, "encoded again at the channel's size")
            XCTAssertEqual(video.height, 240)
        }
    }
}

/// gst-launch-1.0 storing a camera's H.264 as it comes, the issue's comparison pipeline.
private final class ReferenceRecorder {
    private let process = Process()
    let path: String

    init(url: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("reference-\(UUID().uuidString).mp4").path
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        process.arguments = [
            "-e", "rtspsrc", "location=\(url)", "!", "rtph264depay", "!", "h264parse", "!", "mp4mux", "!", "filesink",
            "location=\(path)",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Ends it with EOS (SIGINT under `-e`) and reads what it stored.
    func stop() throws -> MediaProbe {
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        return try MediaProbe(path)
    }
}
