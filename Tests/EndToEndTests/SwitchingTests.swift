import ApplianceProtocol
import ApplianceCore
import Foundation
import XCTest

/// Switching cameras at runtime, also while recording, and surviving cameras that fail.
final class SwitchingTests: XCTestCase {
    private var demoCameras: String {
        let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Config/demo.toml")
        let text = (try? String(contentsOf: demo, encoding: .utf8)) ?? ""
        return String(text[text.range(of: "[[camera]]")!.lowerBound...]).replacingOccurrences(of: "[preview]\nsink = \"none\"\n", with: "")
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
        XCTAssertEqual(try daemon.result("status")["active_camera"] as? String, "front")
        let before = try XCTUnwrap(try daemon.result("status")["output"] as? [String: Any])
        _ = try daemon.result("record.start", args: ["title": "switching"])
        var order: [String] = []
        for _ in 0..<5 {
            Thread.sleep(forTimeInterval: 0.6)
            let result = try daemon.result("switch", args: ["next": true])
            XCTAssertEqual(result["switched"] as? Bool, true)
            XCTAssertNotNil(result["latency_ms"] as? Double, "the new camera's first frame reached the encoder")
            order.append(result["active"] as? String ?? "")
        }
        XCTAssertEqual(order, ["back", "front", "back", "front", "back"])
        Thread.sleep(forTimeInterval: 0.6)
        let stop = try daemon.result("record.stop")
        XCTAssertEqual(stop["dropped_frames"] as? Int, 0)
        // Each switch is a handover on a frame boundary: no slot filled twice (a repeated frame), none skipped.
        let after = try XCTUnwrap(try daemon.result("status")["output"] as? [String: Any])
        for counter in ["filled_slots", "slot_collisions", "missing_slots"] {
            XCTAssertEqual((after[counter] as? Int ?? -1) - (before[counter] as? Int ?? 0), 0, counter)
        }

        let path = try XCTUnwrap(stop["path"] as? String)
        let probe = try MediaProbe(path)
        XCTAssertEqual(probe.streams.filter { $0.type == "video" }.count, 1, "one video stream")
        let video = try XCTUnwrap(probe.video), audio = try XCTUnwrap(probe.audio)
        XCTAssertEqual(video.width, 1280)
        XCTAssertEqual(video.height, 720)
        XCTAssertEqual(Set(try sampleDescriptionCounts(path)), [1], "one sample description per track")
        try probe.assertSmoothVideo(framerate: 30)
        XCTAssertEqual(try probe.decodeErrors(), "")
        XCTAssertEqual(audio.duration, video.duration, accuracy: 0.1, "audio is untouched by video switches")
        XCTAssertEqual(Double(video.frames), video.duration * 30, accuracy: 1)

        let info = try daemon.result("info", args: ["id": try XCTUnwrap(stop["id"] as? String)])
        XCTAssertEqual(info["camera"] as? String, "front,back")
        let resolutions = try ProcessOutcome.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                                     "frame=width,height", "-of", "csv=p=0", path])
        XCTAssertEqual(Set(resolutions.stdout.split(separator: "\n").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: ",")) }), ["1280,720"], "one resolution throughout")
    }

    func testFailingCamerasLeaveAValidRecordingThatGoesOn() throws {
        // "ends" stops after 1.5 s (EOS), "breaks" errors after 1.5 s; "good" keeps going.
        let daemon = try DaemonProcess(cameras: """
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
        _ = try daemon.result("record.start", args: ["title": "through failures"])
        Thread.sleep(forTimeInterval: 4.0)
        let status = try daemon.result("status")
        XCTAssertEqual(status["state"] as? String, "recording", "the recording goes on")
        XCTAssertEqual(status["active_camera"] as? String, "good")
        let stop = try daemon.result("record.stop")
        let probe = try MediaProbe(try XCTUnwrap(stop["path"] as? String))
        XCTAssertGreaterThan(try XCTUnwrap(probe.video).duration, 3.5)
        XCTAssertEqual(try probe.decodeErrors(), "")
        try probe.assertSmoothVideo(framerate: 30)

        var failed: [String] = []
        while failed.count < 2 { failed.append(try listener.waitFor("camera_failed")["camera"] as? String ?? "") }
        XCTAssertEqual(failed, ["ends", "breaks"])
        XCTAssertTrue(daemon.log.contains("camera 'ends' failed"), daemon.log)
        let cameras = try XCTUnwrap(try daemon.result("cameras")["cameras"] as? [[String: Any]])
        XCTAssertEqual(cameras.map { $0["state"] as? String }, ["error", "error", "active"])
        XCTAssertEqual(try daemon.result("info", args: ["id": try XCTUnwrap(stop["id"] as? String)])["camera"] as? String, "ends,breaks,good")
    }

    func testSwitchErrorsAndAlwaysOnCameras() throws {
        let daemon = try DaemonProcess(cameras: """
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
        XCTAssertEqual((try daemon.call("switch", args: [:])["error"] as? [String: Any])?["code"] as? String, "bad_request")
        XCTAssertEqual((try daemon.call("switch", args: ["camera": "one", "next": true])["error"] as? [String: Any])?["code"] as? String, "bad_request")
        XCTAssertEqual((try daemon.call("switch", args: ["camera": 3])["error"] as? [String: Any])?["code"] as? String, "bad_request")
        XCTAssertEqual(try daemon.result("switch", args: ["camera": "one"])["switched"] as? Bool, false, "already active")

        _ = try daemon.result("record.start")
        let cli = try daemon.ctl(["switch", "two"])
        XCTAssertEqual(cli.status, 0, cli.stderr)
        XCTAssertTrue(cli.stdout.contains("active camera: two"), cli.stdout)
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(try daemon.result("switch", args: ["next": true])["active"] as? String, "one")
        Thread.sleep(forTimeInterval: 0.5)
        let stop = try daemon.result("record.stop")
        let probe = try MediaProbe(try XCTUnwrap(stop["path"] as? String))
        try probe.assertSmoothVideo(framerate: 30)
        XCTAssertEqual(try probe.decodeErrors(), "")

        // Concurrent requests are serialised: every one gets an answer and the last one wins.
        let socketPath = daemon.socketPath
        let answers = Locked([String]())
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            let name = index % 2 == 0 ? "one" : "two"
            if let result = try? ControlClient(path: socketPath, timeout: 20).call("switch", args: ["camera": name]),
               let active = (result["result"] as? [String: Any])?["active"] as? String {
                answers.withLock { $0.append(active) }
            }
        }
        XCTAssertEqual(answers.withLock { $0.count }, 6)
        let active = try daemon.result("cameras")["active"] as? String
        XCTAssertTrue(["one", "two"].contains(active ?? ""))
        let states = (try daemon.result("cameras")["cameras"] as? [[String: Any]])?.map { $0["state"] as? String }
        XCTAssertEqual(states?.filter { $0 == "active" }.count, 1)
    }
}

final class HotplugTests: XCTestCase {
    /// A missing V4L2 camera becomes available when its device node appears; switching to a device that cannot
    /// stream fails atomically: the previous camera stays active.
    func testMissingCameraAppearsAndAFailedSwitchKeepsThePreviousCamera() throws {
        let node = FileManager.default.temporaryDirectory.appendingPathComponent("video-\(UUID().uuidString.prefix(6))").path
        defer { try? FileManager.default.removeItem(atPath: node) }
        let daemon = try DaemonProcess(cameras: """
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
            (try daemon.result("cameras")["cameras"] as? [[String: Any]])?.first { $0["name"] as? String == name }?["state"] as? String
        }
        XCTAssertEqual(try state("usb"), "missing")

        FileManager.default.createFile(atPath: node, contents: Data())  // "plugged in" (but not a real camera)
        try listener.waitFor("camera_available")
        XCTAssertEqual(try state("usb"), "standby")

        _ = try daemon.result("record.start")
        let failed = try daemon.call("switch", args: ["camera": "usb"])
        let error = try XCTUnwrap(failed["error"] as? [String: Any])
        XCTAssertEqual(error["code"] as? String, "unavailable")
        XCTAssertTrue((error["message"] as? String ?? "").contains("still on 'spare'"), "\(error)")
        XCTAssertEqual(try daemon.result("cameras")["active"] as? String, "spare")
        XCTAssertEqual(try state("usb"), "error")
        Thread.sleep(forTimeInterval: 0.5)
        let stop = try daemon.result("record.stop")
        let probe = try MediaProbe(try XCTUnwrap(stop["path"] as? String))
        try probe.assertSmoothVideo(framerate: 30)
        XCTAssertEqual(try probe.decodeErrors(), "")

        try FileManager.default.removeItem(atPath: node)  // "unplugged"
        let deadline = Date().addingTimeInterval(6)
        while Date() < deadline, try state("usb") != "missing" { Thread.sleep(forTimeInterval: 0.2) }
        XCTAssertEqual(try state("usb"), "missing")
    }
}
