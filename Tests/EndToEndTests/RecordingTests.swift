import ApplianceBase
import ApplianceProtocol
import Foundation
import XCTest

/// Records with the real daemon and checks the files with ffprobe/ffmpeg.
final class RecordingTests: XCTestCase {
    func testThreeSecondRecordingIsValidWithThumbnail() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }

        let started = try daemon.recordStart(title: "three seconds")
        XCTAssertEqual(started.title, "three seconds")
        try daemon.waitUntilRecorded(3.0)
        let stop = try daemon.recordStop()

        let path = stop.path
        XCTAssertTrue(path.hasPrefix(daemon.dataDir + "/recordings/"), path)
        XCTAssertNotNil(
            path.range(of: #"/recordings/\d{4}/\d{2}/\d{2}/[0-9a-f-]{36}\.mp4$"#, options: .regularExpression), path)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))
        XCTAssertEqual(daemon.partialFiles(), [], "the partial file must have been moved")

        let probe = try MediaProbe(path)
        let video = try XCTUnwrap(probe.video)
        let audio = try XCTUnwrap(probe.audio)
        XCTAssertEqual(video.codec, "h264")
        XCTAssertEqual(audio.codec, "aac")
        XCTAssertEqual(video.width, 1280)
        XCTAssertEqual(video.height, 720)
        XCTAssertEqual(video.duration, 3.0, accuracy: 0.2)
        XCTAssertEqual(Double(video.frames), video.duration * 30, accuracy: 1.0)
        try probe.assertSmoothVideo(framerate: 30)
        XCTAssertEqual(try probe.decodeErrors(), "")
        XCTAssertLessThan(abs(audio.startTime - video.startTime), 0.040, "A/V start offset in the file")
        XCTAssertLessThan(abs(stop.avOffsetMs ?? 999), 40)
        XCTAssertEqual(audio.duration, video.duration, accuracy: 0.1)

        let durationMs = stop.durationMs
        XCTAssertEqual(Double(durationMs) / 1000, video.duration, accuracy: 0.05, "reported duration matches the file")
        XCTAssertEqual(stop.videoFrames, UInt64(video.frames))
        XCTAssertEqual(stop.droppedFrames, 0)

        let thumbnail = try XCTUnwrap(stop.thumbnail)
        let size = try jpegSize(thumbnail)
        XCTAssertLessThanOrEqual(size.width, 320)
        XCTAssertLessThanOrEqual(size.height, 320)
        XCTAssertEqual(size.width, 320, "16:9 fits 320 wide")
        XCTAssertEqual(size.height, 180)
    }

    func testRecordingsFollowOneAnotherOnOneRunningPipeline() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let pid = daemon.pid
        var paths: [String] = []
        for index in 0..<2 {
            _ = try daemon.recordStart(title: "clip \(index)")
            try daemon.waitUntilRecorded(1.5)
            let stop = try daemon.recordStop()
            paths.append(stop.path)
        }
        XCTAssertEqual(daemon.pid, pid)
        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(Set(paths).count, 2)
        for path in paths {
            let probe = try MediaProbe(path)
            XCTAssertEqual(try XCTUnwrap(probe.video).duration, 1.5, accuracy: 0.2)
            XCTAssertNotNil(probe.audio)
            try probe.assertSmoothVideo(framerate: 30)
            XCTAssertEqual(try probe.decodeErrors(), "")
        }
        let status = try daemon.status()
        XCTAssertEqual(status.recordingsThisRun, 2)
        XCTAssertEqual(status.state, .idle)
    }

    func testCtlRecordStopPrintsTheJSONContract() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let start = try daemon.ctl(["--json", "record", "start", "--title", "first"])
        XCTAssertEqual(start.status, 0, start.stderr)
        XCTAssertNotNil(start.json?["id"] as? String)
        try daemon.waitUntilRecorded(1.2)
        let stop = try daemon.ctl(["record", "stop", "--json", "--title", "Ünïcode \"quoted\" / slashed"])
        XCTAssertEqual(stop.status, 0, stop.stderr)
        let json = try XCTUnwrap(stop.json, stop.stdout)
        XCTAssertEqual(json["id"] as? String, start.json?["id"] as? String)
        XCTAssertEqual(json["title"] as? String, "Ünïcode \"quoted\" / slashed")
        let path = try XCTUnwrap(json["path"] as? String)
        XCTAssertTrue(path.hasPrefix("/") && FileManager.default.fileExists(atPath: path))
        XCTAssertGreaterThan(json["duration_ms"] as? Int ?? 0, 900)
        XCTAssertTrue(FileManager.default.fileExists(atPath: json["thumbnail"] as? String ?? ""))

        let human = try daemon.ctl(["status"])
        XCTAssertEqual(human.status, 0)
        XCTAssertTrue(human.stdout.contains("state: idle"), human.stdout)
    }

    func testSnapshotIsAFullResolutionJPEG() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let result = try daemon.ctl(["--json", "snapshot"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let path = try XCTUnwrap(result.json?["path"] as? String)
        XCTAssertTrue(path.hasPrefix(daemon.dataDir + "/snapshots/"))
        let size = try jpegSize(path)
        XCTAssertEqual(size.width, 1280)
        XCTAssertEqual(size.height, 720)
    }

    func testMaxDurationStopsTheRecordingByItself() throws {
        let daemon = try DaemonProcess(extra: "[recording]\nmax_duration_s = 2.0")
        try daemon.start()
        defer { daemon.stop() }
        _ = try daemon.recordStart()
        daemon.waitFor(10) { !daemon.recordings().isEmpty }
        let files = daemon.recordings()
        XCTAssertEqual(files.count, 1, daemon.log)
        let probe = try MediaProbe(try XCTUnwrap(files.first))
        XCTAssertEqual(try XCTUnwrap(probe.video).duration, 2.0, accuracy: 0.25)
        XCTAssertEqual(try probe.decodeErrors(), "")
        XCTAssertEqual(try daemon.status().state, .idle)
        XCTAssertTrue(daemon.log.contains("max_duration"), daemon.log)
        // And the next recording works as usual.
        _ = try daemon.recordStart()
        try daemon.waitUntilRecorded(0.5)
        XCTAssertNotNil(try daemon.recordStop().path)
    }
}
