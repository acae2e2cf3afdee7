import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Object detection in the daemon on real footage fed as a camera at real time (opencv-doc's clips), on the default
/// detector (OpenCV's HOG people detector, no model file): people walking are `person` objects that record with
/// `trigger = "person"`; a tree in the wind is motion and no person. A model the test makes goes through the whole
/// path; a missing one is one line and motion goes on.
final class ObjectTests: XCTestCase {
    static let detection = "[motion]\nenabled = true\n[objects]\nenabled = true\n"

    /// People walking (vtest.avi): a person, a recording it started that decodes, its activity with a picture; Home
    /// Assistant (over a real mosquitto) sees the occupancy and the count.
    func testPeopleWalkingAreAPersonThatStartsARecording() throws {
        let clip = try ClipCamera(clip: ClipCamera.opencvClip("vtest.avi"), width: 768, height: 576)
        let broker = try MosquittoBroker()
        try broker.start()
        let watcher = try MQTTWatcher(broker: broker, filter: "#")
        let daemon = try DaemonProcess(
            extra: clip.video + "\n" + Self.detection + "[recording]\ntrigger = \"person\"\n", cameras: clip.config)
        let password = daemon.directory.path + "/mqtt-password"
        _ = FileManager.default.createFile(
            atPath: password, contents: Data(broker.password.utf8), attributes: [.posixPermissions: 0o600])
        try daemon.appendConfig(
            """

            [mqtt]
            url = "\(broker.url)"
            username = "\(broker.user)"
            password_file = "\(password)"
            topic_prefix = "test/objects"
            discovery_prefix = "homeassistant"
            """)
        try daemon.start()
        defer { daemon.stop() }
        let typed = try TypedEvents(daemon, timeout: 40)
        let person = try typed.waitFor("a person") { event -> ObjectEvent? in
            if case .objectStarted(let o) = event { return o }
            return nil
        }
        XCTAssertEqual(person.label, "person")
        XCTAssertEqual(person.camera, "clip")
        XCTAssertGreaterThanOrEqual(person.score, 0.7, "its score held over runs")
        XCTAssertGreaterThan(person.box.height, person.box.width, "a person's box stands upright")
        XCTAssertTrue(
            [person.box.x, person.box.y].allSatisfy { (0..<1).contains($0) } && person.box.x + person.box.width <= 1)
        _ = try typed.waitFor("the recording the person started") { event -> Bool? in
            if case .recordingStarted = event { return true }
            return nil
        }
        let status = try XCTUnwrap(try daemon.status().objects)
        XCTAssertEqual(status.detector, "OpenCV's HOG people detector")
        XCTAssertEqual([status.width, status.height], [768, 576], "the picture's own size, never upscaled")
        XCTAssertGreaterThan(status.runs, 0)
        XCTAssertGreaterThan(status.detections["person"] ?? 0, 0)
        let metrics = try daemon.metrics()
        XCTAssertEqual(metrics["appliance_events_total"]?.value(["kind": "object"]), Double(status.events))
        XCTAssertGreaterThan(metrics["appliance_object_run_ms"]?.value() ?? 0, 0, "runs are timed")

        XCTAssertTrue(watcher.waitFor("test/objects/objects/person", "ON"), "occupancy on MQTT")
        XCTAssertTrue(
            watcher.waitFor(20) { seen in
                seen.contains { $0.topic == "test/objects/objects/person/count" && (Int($0.text) ?? 0) >= 1 }
            })
        XCTAssertTrue(
            watcher.waitFor(20) { seen in
                seen.contains {
                    $0.topic.hasPrefix("homeassistant/binary_sensor/") && $0.topic.hasSuffix("/person_occupancy/config")
                        && $0.text.contains("\"device_class\":\"occupancy\"")
                }
            }, "Home Assistant discovers the occupancy sensor")

        try daemon.waitForMoreVideo(3)
        let stopped = try daemon.recordStop()
        let decoded = try ProcessOutcome.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", stopped.path, "-f", "null", "-"], timeout: 60)
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        XCTAssertEqual(decoded.stderr, "", "the clip decodes without an error")

        guard case .activity(let list) = try daemon.perform(.activity(ActivityFilter(kinds: [.object]))) else {
            return XCTFail("activity")
        }
        let activity = try XCTUnwrap(list.items.first, "the person is an activity")
        XCTAssertEqual(activity.label, "person")
        XCTAssertEqual(
            activity.startedAt.timeIntervalSince1970, person.startedAt.timeIntervalSince1970, accuracy: 0.002)
        XCTAssertNotNil(activity.box)
        let picture = try XCTUnwrap(activity.thumbnail, "a picture with the person's box")
        XCTAssertTrue(picture.hasSuffix(".jpg") && FileManager.default.fileExists(atPath: picture), picture)
        let listed = try daemon.ctl(["activity", "--label", "person"])
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertTrue(
            listed.stdout.contains("object") && listed.stdout.contains("\"person\"") && listed.stdout.contains("score"),
            listed.stdout)
        XCTAssertTrue(try daemon.ctl(["activity", "--label", "car"]).stdout.contains("no activity"))
    }

    /// A picture that moves everywhere at the default size (1280x720 noise: every crop is the whole picture, a HOG run
    /// of several hundred ms): the detector stays within its default budget, a quarter of a core measured in its
    /// thread's CPU time, by resting between runs; its rate falls below fps and status says the rate it holds.
    func testConstantMotionKeepsTheDetectorWithinItsCPUBudget() throws {
        let daemon = try DaemonProcess(
            extra: Self.detection,
            cameras: """
                [[camera]]
                name = "snow"
                source = "pipeline"
                pipeline = "videotestsrc is-live=true pattern=snow"
                """)
        try daemon.start()
        defer { daemon.stop() }
        let began = Date()
        XCTAssertTrue(try daemon.waitFor(60) { (try daemon.status().objects?.runs ?? 0) >= 4 }, "four runs")
        try daemon.showingLogOnFailure(in: self) {
            let objects = try XCTUnwrap(try daemon.status().objects)
            let elapsed = Date().timeIntervalSince(began)
            let (cpu, runs) = (try XCTUnwrap(objects.cpuS), Double(objects.runs))
            XCTAssertEqual(objects.cpuBudget, 0.25, "the default budget")
            XCTAssertGreaterThan(objects.held ?? 0, 0, "frames due while it rested are held")
            // Within the budget over the time it ran (the run just ended may not have had its rest yet).
            XCTAssertLessThanOrEqual(cpu, 0.25 * elapsed + cpu / runs, "\(cpu) CPU s in \(elapsed) s, \(runs) runs")
            let held = try XCTUnwrap(objects.heldFps)
            XCTAssertLessThan(held, Double(objects.fps), "the rate falls below fps: \(objects)")
            XCTAssertEqual(held, 0.25 / (cpu / runs), accuracy: 0.02)
            let text = try daemon.ctl(["status"]).stdout
            XCTAssertTrue(text.contains("by its 25 % CPU budget"), text)
            XCTAssertEqual(
                Self.threadNiceValues(pid: try XCTUnwrap(daemon.pid)).filter { $0 == 10 }.count, 2,
                "two threads (the object and the motion detectors') 10 below the others")
            let metrics = try MetricsTests.parse(try daemon.ctl(["metrics"]))
            XCTAssertGreaterThan(metrics["appliance_object_frames_held_total"] ?? 0, 0)
            XCTAssertGreaterThan(metrics["appliance_object_cpu_seconds_total"] ?? 0, 0)
            print(
                "ObjectTests: \(objects.runs) runs of \(objects.meanRunMs) ms, \(cpu) CPU s in "
                    + "\(String(format: "%.1f", elapsed)) s; held at \(held) runs/s, \(objects.held ?? 0) frames held")
        }
    }

    /// Each thread's nice value (/proc/PID/task/TID/stat, the 19th field; the 2nd, the name, may hold spaces).
    static func threadNiceValues(pid: Int32) -> [Int] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.compactMap { task in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 16 ? Int(fields[16]) : nil  // after the name: state is the 3rd field, nice the 19th
        }
    }

    func testATreeInTheWindIsMotionButNoPersonAndRecordsNothing() throws {
        let clip = try ClipCamera(clip: ClipCamera.opencvClip("tree.avi"), width: 320, height: 240)
        let daemon = try DaemonProcess(
            extra: clip.video + "\n" + Self.detection + "[recording]\ntrigger = \"person\"\n", cameras: clip.config)
        try daemon.start()
        defer { daemon.stop() }
        // The whole clip (29.6 s) is played; the daemon's camera then ends.
        XCTAssertTrue(Poll.until(timeout: 60) { !clip.playing }, "the clip played to its end")
        let status = try daemon.status()
        XCTAssertGreaterThan(status.motion?.events ?? 0, 0, "the tree in the wind is motion")
        let objects = try XCTUnwrap(status.objects)
        XCTAssertGreaterThan(objects.runs, 10, "the detector looked while the tree moved")
        XCTAssertEqual(objects.events, 0, "no person: \(objects)")
        XCTAssertEqual(status.recordingsThisRun, 0, "nothing recorded")
        XCTAssertEqual(daemon.recordings(), [])
    }

    /// A model the test makes (make_model.py: class 0 with a score of 0.9 × the crop's mean brightness, box 20x40 at
    /// the
    /// centre of its 64x64 input) through the daemon: the labels file names class 0, crops around the moving ball
    /// are scaled to the model's input and its detections back, and the second, overlapping row is suppressed.
    func testAModelTheTestMadeFindsTheMovingBallThroughTheWholePath() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appliance-model-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let model = try Self.makeModel("yolo", directory: directory.path)
        let labels = directory.appendingPathComponent("labels.txt").path
        try "ghost\nother\n".write(toFile: labels, atomically: true, encoding: .utf8)
        // The ball covers about a third of a crop: scores near 0.3, so this test's thresholds are lower than the
        // default.
        let objects = """
            [motion]
            enabled = true
            [objects]
            enabled = true
            model = "\(model)"
            labels = "\(labels)"
            input_width = 64
            input_height = 64
            min_score = 0.15
            threshold = 0.15
            track = ["ghost"]
            """
        let daemon = try DaemonProcess(
            extra: "[video]\nwidth = 320\nheight = 240\n" + objects,
            cameras: "[[camera]]\nname = \"ball\"\nsource = \"test\"\npattern = \"ball\"\n")
        try daemon.start()
        defer { daemon.stop() }
        let typed = try TypedEvents(daemon, timeout: 40)
        let ghost = try typed.waitFor("the model's object") { event -> ObjectEvent? in
            if case .objectStarted(let o) = event { return o }
            return nil
        }
        XCTAssertEqual(ghost.label, "ghost", "class 0 named by the labels file")
        XCTAssertEqual(ghost.camera, "ball")
        XCTAssertGreaterThan(ghost.score, 0.15)
        XCTAssertLessThanOrEqual(ghost.score, 0.9)
        // 20x40 of a 64x64 input, scaled to a crop at least 64x64 of the 320x240 picture: at least 20x40 pixels.
        XCTAssertGreaterThanOrEqual(ghost.box.width, 20.0 / 320 - 0.002)
        XCTAssertGreaterThanOrEqual(ghost.box.height, 40.0 / 240 - 0.002)
        XCTAssertEqual(
            ghost.box.height / ghost.box.width * 240 / 320, 2, accuracy: 0.5,
            "the model's 1:2 box, scaled with the crop")
        let status = try XCTUnwrap(try daemon.status().objects)
        XCTAssertEqual(status.detector, "model " + (model as NSString).lastPathComponent)
        XCTAssertNil(status.detections["other"], "class 1 never scores")
        XCTAssertLessThanOrEqual(status.present["ghost"] ?? 0, 1, "the overlapping second row is suppressed")
    }

    /// A model make_model.py makes (Debian's python3-onnx) in `directory`; its path.
    static func makeModel(_ kind: String, directory: String) throws -> String {
        let path = directory + "/\(kind)-\(UUID().uuidString.prefix(6)).onnx"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("ObjectDetectionTests/make_model.py").path
        let made = try ProcessOutcome.run("/usr/bin/python3", [script, kind, path], timeout: 60)
        guard made.status == 0 else { throw DaemonError(message: "make_model.py \(kind): \(made.stderr)") }
        return path
    }

    func testAMissingOrForeignModelIsOneLineAndMotionGoesOn() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appliance-model-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let foreign = directory.appendingPathComponent("garbage.onnx").path
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: foreign))
        for (model, says) in [
            ("/nonexistent/model.onnx", "cannot read the model /nonexistent/model.onnx"),
            (foreign, "OpenCV cannot load the model \(foreign)"),
        ] {
            let daemon = try DaemonProcess(
                extra: "[video]\nwidth = 320\nheight = 240\n" + Self.detection + "model = \"\(model)\"\n",
                cameras: "[[camera]]\nname = \"ball\"\nsource = \"test\"\npattern = \"ball\"\n")
            try daemon.start()
            defer { daemon.stop() }
            XCTAssertTrue(try daemon.waitFor(20) { (try daemon.status().motion?.events ?? 0) > 0 }, "motion goes on")
            XCTAssertNil(try daemon.status().objects, "no detector")
            let lines = daemon.log.split(separator: "\n").filter { $0.contains("objects:") }
            XCTAssertEqual(lines.count, 1, daemon.log)
            XCTAssertTrue(
                lines.first?.contains(says) == true && lines.first?.contains("running on motion alone") == true,
                "\(lines)")

            let doctor = try ProcessOutcome.run(
                DaemonProcess.binary, ["doctor", "--config", daemon.configPath], timeout: 180)
            XCTAssertNotEqual(doctor.status, 0)
            XCTAssertTrue(doctor.stdout.contains("FAIL  objects: ") && doctor.stdout.contains(says), doctor.stdout)
        }
    }
}
