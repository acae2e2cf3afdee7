import ApplianceApp
import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// The recordings library through the real daemon: list, info, rename, delete, lock, ids, events.
final class LibraryEndToEndTests: XCTestCase {
    /// Records `count` short clips and returns their ids, oldest first.
    private func record(_ count: Int, on daemon: DaemonProcess) throws -> [String] {
        try (0..<count).map { index in
            _ = try daemon.recordStart(title: "clip \(index)")
            try daemon.waitUntilRecorded(0.4)
            return try daemon.recordStop().id
        }
    }

    func testListPagesNewestFirstWithTotals() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let ids = try record(11, on: daemon)

        let first = try daemon.list()
        XCTAssertEqual(first.total, 11)
        let items = first.items
        XCTAssertEqual(items.map(\.id), ids.reversed().prefix(10).map { $0 })
        for item in items {
            let fields: [(String, Any?)] = [
                ("id", item.id), ("title", item.title), ("created_at", item.createdAt),
                ("duration_ms", item.durationMs), ("path", item.path), ("thumbnail", item.thumbnail),
            ]
            for (key, value) in fields {
                XCTAssertNotNil(value, "list item has \(key)")
            }
            XCTAssertEqual(item.state, .complete)
            XCTAssertTrue(FileManager.default.fileExists(atPath: item.path))
        }
        let second = try daemon.list(page: 2)
        XCTAssertEqual(second.items.map(\.id), [ids[0]])
        XCTAssertEqual(second.total, 11)
        XCTAssertEqual(try daemon.list(page: 3).items.count, 0)
        XCTAssertEqual(try daemon.list(page: 2, perPage: 4).items.map(\.id), ids.reversed()[4..<8].map { $0 })

        let json = try daemon.ctl(["--json", "list", "--per-page", "3"])
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual((json.json?["items"] as? [Any])?.count, 3)
        XCTAssertEqual(json.json?["total"] as? Int, 11)
        let human = try daemon.ctl(["list"])
        XCTAssertEqual(human.status, 0)
        XCTAssertTrue(human.stdout.contains("TITLE"), human.stdout)
        XCTAssertTrue(human.stdout.contains("clip 10"), human.stdout)
        XCTAssertTrue(human.stdout.contains("page 1 of 2 (11 recordings)"), human.stdout)

        for bad in [["page": 0], ["per_page": 0], ["page": "2"], ["per_page": 100_000], ["page": true]]
            as [[String: Any]]
        {
            let response = try daemon.call("list", args: bad)
            XCTAssertEqual((response["error"] as? [String: Any])?["code"] as? String, "bad_request", "\(bad)")
        }
    }

    func testInfoMatchesFFprobe() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        _ = try daemon.recordStart()
        try daemon.waitUntilRecorded(1.5)
        let stop = try daemon.recordStop()
        let id = stop.id
        let info = try daemon.info(String(id.prefix(8)))
        let clip = info.recording
        let probe = try MediaProbe(clip.path)
        let video = try XCTUnwrap(probe.video)
        let audio = try XCTUnwrap(probe.audio)
        XCTAssertEqual(clip.id, id)
        XCTAssertEqual(clip.state, .complete)
        XCTAssertEqual(clip.width, video.width)
        XCTAssertEqual(clip.height, video.height)
        XCTAssertEqual(clip.framerate, 30)
        XCTAssertEqual(clip.videoCodec, video.codec)
        XCTAssertEqual(clip.audioCodec, audio.codec)
        XCTAssertEqual(clip.audioPresent, true)
        XCTAssertEqual(clip.camera, "main")
        XCTAssertEqual(clip.locked, false)
        XCTAssertEqual(clip.backupState.rawValue, "none")
        XCTAssertEqual(Double(clip.durationMs ?? 0) / 1000, video.duration, accuracy: 0.05)
        let size = try FileManager.default.attributesOfItem(atPath: clip.path)[.size] as? NSNumber
        XCTAssertEqual(clip.sizeBytes, size?.int64Value)
        let fields: [(String, Any?)] = [
            ("created_at", clip.createdAt), ("started_at", clip.startedAt), ("ended_at", clip.endedAt),
            ("title", clip.title), ("thumbnail", clip.thumbnail),
        ]
        for (key, value) in fields { XCTAssertNotNil(value, key) }

        let measured = info.measured
        XCTAssertEqual(measured.width, 1280)
        XCTAssertEqual(measured.height, 720)
        XCTAssertEqual(measured.videoCodec, "h264")
        XCTAssertEqual(measured.audioCodec, "aac")
        XCTAssertEqual(Double(measured.durationMs ?? 0) / 1000, max(video.duration, audio.duration), accuracy: 0.05)
    }

    func testRenameTakesAnyTextAndNeverTouchesTheFileName() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let id = try XCTUnwrap(try record(1, on: daemon).first)
        let pathBefore = try daemon.info(id).recording.path
        let awkward = "日本語 🎥 «quoted» \"double\" 'single' / back\\slash ../../etc/passwd; DROP TABLE recordings; --"
        let renamed = try daemon.ctl(["rename", String(id.prefix(6)), awkward])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        let info = try daemon.info(id).recording
        XCTAssertEqual(info.title, awkward)
        XCTAssertEqual(info.path, pathBefore)
        XCTAssertEqual(try daemon.list().items.first?.title, awkward)
        for bad in ["", "   ", "line\nbreak", String(repeating: "x", count: 501)] {
            let response = try daemon.call("rename", args: ["id": id, "title": bad])
            XCTAssertEqual((response["error"] as? [String: Any])?["code"] as? String, "bad_request", bad)
        }
        XCTAssertEqual(try daemon.info(id).recording.title, awkward)
    }

    func testDeleteRemovesFileThumbnailAndRowAndRespectsLocks() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let ids = try record(2, on: daemon)
        let info = try daemon.info(ids[0]).recording
        let path = info.path
        let thumbnail = try XCTUnwrap(info.thumbnail)

        XCTAssertEqual(try daemon.ctl(["lock", ids[0]]).status, 0)
        XCTAssertEqual(try daemon.info(ids[0]).recording.locked, true)
        let refused = try daemon.ctl(["delete", ids[0]])
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("locked"), refused.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path))

        XCTAssertEqual(try daemon.ctl(["unlock", ids[0]]).status, 0)
        let deleted = try daemon.ctl(["--json", "delete", ids[0]])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertEqual(Set(deleted.json?["deleted_files"] as? [String] ?? []), [path, thumbnail])
        XCTAssertFalse(FileManager.default.fileExists(atPath: path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: thumbnail))
        XCTAssertEqual(daemon.errorCode(.info(id: ids[0])), "not_found")
        XCTAssertEqual(try daemon.list().total, 1)

        XCTAssertEqual(try daemon.ctl(["lock", ids[1]]).status, 0)
        XCTAssertEqual(try daemon.ctl(["delete", "--force", ids[1]]).status, 0, "--force deletes a locked clip")
        XCTAssertEqual(try daemon.list().total, 0)

        let active = try daemon.recordStart().id
        XCTAssertEqual(daemon.errorCode(.delete(id: active, force: true)), "conflict")
        XCTAssertEqual(try daemon.list().total, 1, "the recording in progress is listed")
        try daemon.waitUntilRecorded(0.5)
        XCTAssertNotNil(try daemon.recordStop().path)
    }

    func testUnknownAndAmbiguousIdsAreClearErrors() throws {
        let daemon = try DaemonProcess()
        // Two files sharing a prefix, adopted at start-up (this also exercises adoption).
        let sample = try makeSampleClip()
        defer { try? FileManager.default.removeItem(atPath: sample) }
        let folder = daemon.dataDir + "/recordings/2026/01/02"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for suffix in ["1", "2"] {
            try FileManager.default.copyItem(
                atPath: sample, toPath: "\(folder)/aaaabbbb-0000-4000-8000-00000000000\(suffix).mp4")
        }
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertEqual(try daemon.list().total, 2)
        let ambiguous = try daemon.ctl(["info", "aaaa"])
        XCTAssertNotEqual(ambiguous.status, 0)
        XCTAssertTrue(ambiguous.stderr.contains("ambiguous"), ambiguous.stderr)
        XCTAssertTrue(ambiguous.stderr.contains("aaaabbbb-0000-4000-8000-000000000001"), ambiguous.stderr)
        XCTAssertEqual(try daemon.info("aaaabbbb-0000-4000-8000-000000000002").recording.state, .recovered)
        let unknown = try daemon.ctl(["info", "ffff"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.stderr.contains("no recording"), unknown.stderr)
        XCTAssertEqual(daemon.errorCode(.delete(id: "ffff", force: false)), "not_found")
        XCTAssertEqual(
            (try daemon.call("rename", args: ["id": "../../x", "title": "t"])["error"] as? [String: Any])?["code"]
                as? String, "bad_request")
        XCTAssertEqual(
            (try daemon.call("info", args: [:])["error"] as? [String: Any])?["code"] as? String, "bad_request")
        XCTAssertEqual(
            (try daemon.call("delete", args: ["id": "aaaa", "force": "yes"])["error"] as? [String: Any])?["code"]
                as? String, "bad_request")
    }

    func testEventsArriveInOrder() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let listener = try EventListener(daemon, timeout: 10)

        let id = try XCTUnwrap(try record(1, on: daemon).first)
        _ = try daemon.rename(id, title: "renamed")
        _ = try daemon.lock(id)
        _ = try daemon.delete(id, force: true)
        var seen: [(String, [String: Any])] = []
        while seen.count < 6 {
            let event = try listener.next()
            XCTAssertNotNil(event.time)
            seen.append((event.name, event.data))
        }
        XCTAssertEqual(
            seen.map(\.0),
            ["recording_started", "recording_stopped", "thumbnail_ready", "renamed", "locked", "deleted"])
        for (_, data) in seen { XCTAssertEqual(data["id"] as? String, id) }
        XCTAssertEqual(seen[3].1["title"] as? String, "renamed")
        XCTAssertNotNil(seen[1].1["path"] as? String)

        // The CLI prints them as they come.
        let cli = Process()
        cli.executableURL = URL(fileURLWithPath: DaemonProcess.binary)
        cli.arguments = ["ctl", "--socket", daemon.socketPath, "--json", "events"]
        let out = Pipe()
        cli.standardOutput = out
        let output = Locked(Data())
        out.fileHandleForReading.readabilityHandler = { handle in
            let data = handle.availableData
            output.withLock { $0.append(data) }
        }
        // The CLI is subscribed once it prints an event: rename a clip until it shows the rename (no guess at when
        // the connection is up, and no count of the daemon's sockets, which earlier calls' closing made unreliable).
        let probe = try XCTUnwrap(try record(1, on: daemon).first)
        let printedSoFar = { String(decoding: output.withLock { $0 }, as: UTF8.self) }
        try cli.run()
        var attempt = 0
        XCTAssertTrue(
            try Poll.until(timeout: 10, every: 0.3) {
                attempt += 1
                _ = try daemon.rename(probe, title: "probe \(attempt)")
                return printedSoFar().contains("\"event\":\"renamed\"")
            }, "the CLI printed an event")
        _ = try record(1, on: daemon)
        XCTAssertTrue(
            daemon.waitFor(10) { String(decoding: output.withLock { $0 }, as: UTF8.self).contains("recording_stopped") }
        )
        cli.terminate()
        cli.waitUntilExit()
        out.fileHandleForReading.readabilityHandler = nil
        let printed = String(decoding: output.withLock { $0 }, as: UTF8.self)
        XCTAssertTrue(printed.contains("\"event\":\"recording_started\""), printed)
        XCTAssertTrue(printed.contains("\"event\":\"recording_stopped\""), printed)
    }
}

/// A short valid MP4 made with gst-launch (independent of the daemon).
func makeSampleClip(seconds: Int = 1) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent(
        "sample-\(UUID().uuidString.prefix(8)).mp4"
    ).path
    let frames = seconds * 30
    let result = try ProcessOutcome.run(
        "/usr/bin/gst-launch-1.0",
        [
            "-q", "-e",
            "videotestsrc", "num-buffers=\(frames)", "!", "video/x-raw,width=320,height=240,framerate=30/1", "!",
            "x264enc", "!", "h264parse", "!", "mp4mux", "name=mux", "!", "filesink", "location=\(path)",
            "audiotestsrc", "num-buffers=\(seconds * 47)", "!", "audioconvert", "!", "avenc_aac", "!", "aacparse", "!",
            "mux.",
        ])
    guard result.status == 0 else { throw DaemonError(message: "gst-launch failed: \(result.stderr)") }
    return path
}
