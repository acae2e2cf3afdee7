import ApplianceApp
import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Switching cameras at runtime, also while recording, and surviving cameras that fail.
final class SwitchingTests: XCTestCase {
    private var demoCameras: String {
        let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("Config/demo.toml")
        let text = (try? String(contentsOf: demo, encoding: .utf8)) ?? ""
        return String(text[text.range(of: "[[camera]]")!.lowerBound...]).replacingOccurrences(
            of: "[preview]\nsink = \"none\"\n", with: "")
    }

    /// Number of sample descriptions in each track's stsd box (the last moov in the file is the final one).
    private func sampleDescriptionCounts(_ path: String) throws -> [UInt32] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var counts: [UInt32] = []
        var index = data.startIndex
        while let range = data.range(of: Data("stsd".utf8), in: index..<data.endIndex) {
            let at = range.upperBound + 4
            if at + 4 <= data.endIndex { counts.append(data[at..<at + 4].reduce(0) { $0 << 8 | UInt32($1) }) }
            index = range.upperBound
        }
        return counts
    }

    func testRecordWhileSwitchingFiveTimes() throws {
        let daemon = try DaemonProcess(cameras: demoCameras)
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertEqual(try daemon.status().activeCamera, "front")
        let before = try daemon.status().output
        _ = try daemon.recordStart(title: "switching")
        var order: [String] = []
        for _ in 0..<5 {
            try daemon.waitForMoreVideo(0.6)
            let result = try daemon.switchCamera(.next(channel: nil))
            XCTAssertEqual(result.switched, true)
            XCTAssertNotNil(result.latencyMs, "the new camera's first frame reached the encoder")
            order.append(result.active ?? "")
        }
        XCTAssertEqual(order, ["back", "front", "back", "front", "back"])
        try daemon.waitForMoreVideo(0.6)
        let stop = try daemon.recordStop()
        XCTAssertEqual(stop.droppedFrames, 0)
        // Each switch is a handover on a frame boundary: no slot filled twice (a repeated frame), none skipped.
        let after = try daemon.status().output
        let counters: [(String, KeyPath<OutputStats, UInt64>)] = [
            ("filled_slots", \.filledSlots), ("slot_collisions", \.slotCollisions),
            ("missing_slots", \.missingSlots),
        ]
        for (counter, keyPath) in counters {
            XCTAssertEqual(Int(after[keyPath: keyPath]) - Int(before[keyPath: keyPath]), 0, counter)
        }

        let path = stop.path
        let probe = try MediaProbe(path)
        XCTAssertEqual(probe.streams.filter { $0.type == "video" }.count, 1, "one video stream")
        let video = try XCTUnwrap(probe.video)
        let audio = try XCTUnwrap(probe.audio)
        XCTAssertEqual(video.width, 1280)
        XCTAssertEqual(video.height, 720)
        XCTAssertEqual(Set(try sampleDescriptionCounts(path)), [1], "one sample description per track")
        try probe.assertSmoothVideo(framerate: 30)
        XCTAssertEqual(try probe.decodeErrors(), "")
        XCTAssertEqual(audio.duration, video.duration, accuracy: 0.1, "audio is untouched by video switches")
        XCTAssertEqual(Double(video.frames), video.duration * 30, accuracy: 1)

        let info = try daemon.info(stop.id).recording
        XCTAssertEqual(info.camera, "front,back")
        let resolutions = try ProcessOutcome.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries",
                "frame=width,height", "-of", "csv=p=0", path,
            ])
        XCTAssertEqual(
            Set(
                resolutions.stdout.split(separator: "\n").map {
                    $0.trimmingCharacters(in: CharacterSet(charactersIn: ","))
                }), ["1280,720"], "one resolution throughout")
    }

    func testFailingCamerasLeaveAValidRecordingThatGoesOn() throws {
        // "ends" stops after 1.5 s (EOS), "breaks" errors after 1.5 s; "good" keeps going.
        let daemon = try DaemonProcess(
            cameras: """
                [[camera]]
                name = "ends"
                source = "pipeline"
                pipeline = "videotestsrc is-live=true num-buffers=45 pattern=snow"
                [[camera]]
                name = "breaks"
                source = "pipeline"
                pipeline = "videotestsrc is-live=true pattern=ball ! identity error-after=45"
                [[camera]]
                name = "good"
                source = "test"
                pattern = "smpte"
                """)
        try daemon.start()
        defer { daemon.stop() }
        let listener = try EventListener(daemon, timeout: 15)
        _ = try daemon.recordStart(title: "through failures")
        try daemon.waitUntilRecorded(4.0)
        let status = try daemon.status()
        XCTAssertEqual(status.state, .recording, "the recording goes on")
        XCTAssertEqual(status.activeCamera, "good")
        let stop = try daemon.recordStop()
        let probe = try MediaProbe(stop.path)
        XCTAssertGreaterThan(try XCTUnwrap(probe.video).duration, 3.5)
        XCTAssertEqual(try probe.decodeErrors(), "")
        try probe.assertSmoothVideo(framerate: 30)

        var failed: [String] = []
        while failed.count < 2 { failed.append(try listener.waitFor("camera_failed")["camera"] as? String ?? "") }
        XCTAssertEqual(failed, ["ends", "breaks"])
        XCTAssertTrue(daemon.log.contains("camera 'ends' failed"), daemon.log)
        let cameras = try daemon.cameras().cameras
        XCTAssertEqual(cameras.map(\.state), ["error", "error", "active"])
        XCTAssertEqual(try daemon.info(stop.id).recording.camera, "ends,breaks,good")
    }

    func testSwitchErrorsAndAlwaysOnCameras() throws {
        let daemon = try DaemonProcess(
            cameras: """
                [[camera]]
                name = "one"
                source = "test"
                always_on = true
                [[camera]]
                name = "two"
                source = "test"
                pattern = "ball"
                always_on = true
                """)
        try daemon.start()
        defer { daemon.stop() }
        let unknown = try daemon.ctl(["switch", "nope"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.stderr.contains("no camera named 'nope'"), unknown.stderr)
        XCTAssertEqual(unknown.stderr.split(separator: "\n").count, 1)
        XCTAssertEqual(
            (try daemon.call("switch", args: [:])["error"] as? [String: Any])?["code"] as? String, "bad_request")
        XCTAssertEqual(
            (try daemon.call("switch", args: ["camera": "one", "next": true])["error"] as? [String: Any])?["code"]
                as? String, "bad_request")
        XCTAssertEqual(
            (try daemon.call("switch", args: ["camera": 3])["error"] as? [String: Any])?["code"] as? String,
            "bad_request")
        XCTAssertEqual(try daemon.switchCamera(.named("one")).switched, false, "already active")

        _ = try daemon.recordStart()
        let cli = try daemon.ctl(["switch", "two"])
        XCTAssertEqual(cli.status, 0, cli.stderr)
        XCTAssertTrue(cli.stdout.contains("active camera: two"), cli.stdout)
        try daemon.waitForMoreVideo(0.5)
        XCTAssertEqual(try daemon.switchCamera(.next(channel: nil)).active, "one")
        try daemon.waitForMoreVideo(0.5)
        let stop = try daemon.recordStop()
        let probe = try MediaProbe(stop.path)
        try probe.assertSmoothVideo(framerate: 30)
        XCTAssertEqual(try probe.decodeErrors(), "")

        // Concurrent requests are serialised: every one gets an answer and the last one wins.
        let socketPath = daemon.socketPath
        let answers = Locked([String]())
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            let name = index % 2 == 0 ? "one" : "two"
            if case .switched(let result)? = try? ControlClient(path: socketPath, timeout: 20).perform(
                .switchCamera(.named(name))),
                let active = result.active
            {
                answers.withLock { $0.append(active) }
            }
        }
        XCTAssertEqual(answers.withLock { $0.count }, 6)
        let active = try daemon.cameras().active
        XCTAssertTrue(["one", "two"].contains(active ?? ""))
        let states = try daemon.cameras().cameras.map(\.state)
        XCTAssertEqual(states.filter { $0 == "active" }.count, 1)
    }
}

final class HotplugTests: XCTestCase {
    /// A missing V4L2 camera becomes available when its device node appears; switching to a device that cannot
    /// stream fails atomically: the previous camera stays active.
    func testMissingCameraAppearsAndAFailedSwitchKeepsThePreviousCamera() throws {
        let node = FileManager.default.temporaryDirectory.appendingPathComponent("video-\(UUID().uuidString.prefix(6))")
            .path
        defer { try? FileManager.default.removeItem(atPath: node) }
        let daemon = try DaemonProcess(
            cameras: """
                [[camera]]
                name = "spare"
                source = "test"
                [[camera]]
                name = "usb"
                source = "v4l2"
                device = "\(node)"
                """)
        try daemon.start()
        defer { daemon.stop() }
        let listener = try EventListener(daemon, timeout: 15)
        func state(_ name: String) throws -> String? {
            try daemon.cameras().cameras.first { $0.name == name }?.state
        }
        XCTAssertEqual(try state("usb"), "missing")

        _ = FileManager.default.createFile(atPath: node, contents: Data())  // "plugged in" (but not a real camera)
        try listener.waitFor("camera_available")
        XCTAssertEqual(try state("usb"), "standby")

        _ = try daemon.recordStart()
        XCTAssertThrowsError(try daemon.switchCamera(.named("usb"))) { failure in
            let error = failure as? ApplianceError
            XCTAssertEqual(error?.code.rawValue, "unavailable", "\(failure)")
            XCTAssertTrue((error?.message ?? "").contains("still on 'spare'"), "\(failure)")
        }
        XCTAssertEqual(try daemon.cameras().active, "spare")
        XCTAssertEqual(try state("usb"), "error")
        try daemon.waitForMoreVideo(0.5)
        let stop = try daemon.recordStop()
        let probe = try MediaProbe(stop.path)
        try probe.assertSmoothVideo(framerate: 30)
        XCTAssertEqual(try probe.decodeErrors(), "")

        try FileManager.default.removeItem(atPath: node)  // "unplugged"
        try daemon.waitFor(6) { try state("usb") == "missing" }
        XCTAssertEqual(try state("usb"), "missing")
    }
}
