import ApplianceCore
import Foundation
import XCTest

/// The recordings library through the real daemon: list, info, rename, delete, lock, ids, events.
final class LibraryEndToEndTests: XCTestCase {
    /// Records `count` short clips and returns their ids, oldest first.
    private func record(_ count: Int, on daemon: DaemonProcess) throws -> [String] {
        try (0..<count).map { index in
            _ = try daemon.result("record.start", args: ["title": "clip \(index)"])
            Thread.sleep(forTimeInterval: 0.4)
            return try XCTUnwrap(try daemon.result("record.stop")["id"] as? String)
        }
    }

    func testListPagesNewestFirstWithTotals() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let ids = try record(11, on: daemon)

        let first = try daemon.result("list")
        XCTAssertEqual(first["total"] as? Int, 11)
        let items = try XCTUnwrap(first["items"] as? [[String: Any]])
        XCTAssertEqual(items.map { $0["id"] as? String }, ids.reversed().prefix(10).map { $0 })
        for item in items {
            for key in ["id", "title", "created_at", "duration_ms", "path", "thumbnail"] {
                XCTAssertNotNil(item[key], "list item has \(key)")
            }
            XCTAssertEqual(item["state"] as? String, "complete")
            XCTAssertTrue(FileManager.default.fileExists(atPath: item["path"] as? String ?? ""))
        }
        let second = try daemon.result("list", args: ["page": 2])
        XCTAssertEqual((second["items"] as? [[String: Any]])?.map { $0["id"] as? String }, [ids[0]])
        XCTAssertEqual(second["total"] as? Int, 11)
        XCTAssertEqual((try daemon.result("list", args: ["page": 3])["items"] as? [Any])?.count, 0)
        XCTAssertEqual((try daemon.result("list", args: ["page": 2, "per_page": 4])["items"] as? [[String: Any]])?.map { $0["id"] as? String },
                       ids.reversed()[4..<8].map { $0 })

        let json = try daemon.ctl(["--json", "list", "--per-page", "3"])
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual((json.json?["items"] as? [Any])?.count, 3)
        XCTAssertEqual(json.json?["total"] as? Int, 11)
        let human = try daemon.ctl(["list"])
        XCTAssertEqual(human.status, 0)
        XCTAssertTrue(human.stdout.contains("TITLE"), human.stdout)
        XCTAssertTrue(human.stdout.contains("clip 10"), human.stdout)
        XCTAssertTrue(human.stdout.contains("page 1 of 2 (11 recordings)"), human.stdout)

        for bad in [["page": 0], ["per_page": 0], ["page": "2"], ["per_page": 100_000], ["page": true]] as [[String: Any]] {
            let response = try daemon.call("list", args: bad)
            XCTAssertEqual((response["error"] as? [String: Any])?["code"] as? String, "bad_request", "\(bad)")
        }
    }

    func testInfoMatchesFFprobe() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        _ = try daemon.result("record.start")
        Thread.sleep(forTimeInterval: 1.5)
        let stop = try daemon.result("record.stop")
        let id = try XCTUnwrap(stop["id"] as? String)
        let info = try daemon.result("info", args: ["id": String(id.prefix(8))])
        let probe = try MediaProbe(try XCTUnwrap(info["path"] as? String))
        let video = try XCTUnwrap(probe.video), audio = try XCTUnwrap(probe.audio)
        XCTAssertEqual(info["id"] as? String, id)
        XCTAssertEqual(info["state"] as? String, "complete")
        XCTAssertEqual(info["width"] as? Int, video.width)
        XCTAssertEqual(info["height"] as? Int, video.height)
        XCTAssertEqual(info["framerate"] as? Int, 30)
        XCTAssertEqual(info["video_codec"] as? String, video.codec)
        XCTAssertEqual(info["audio_codec"] as? String, audio.codec)
        XCTAssertEqual(info["audio_present"] as? Bool, true)
        XCTAssertEqual(info["camera"] as? String, "main")
        XCTAssertEqual(info["locked"] as? Bool, false)
        XCTAssertEqual(info["backup_state"] as? String, "none")
        XCTAssertEqual(Double(info["duration_ms"] as? Int ?? 0) / 1000, video.duration, accuracy: 0.05)
        let size = try FileManager.default.attributesOfItem(atPath: info["path"] as! String)[.size] as? NSNumber
        XCTAssertEqual((info["size_bytes"] as? NSNumber)?.int64Value, size?.int64Value)
        for key in ["created_at", "started_at", "ended_at", "title", "thumbnail"] { XCTAssertNotNil(info[key], key) }

        let measured = try XCTUnwrap(info["measured"] as? [String: Any])
        XCTAssertEqual(measured["width"] as? Int, 1280)
        XCTAssertEqual(measured["height"] as? Int, 720)
        XCTAssertEqual(measured["video_codec"] as? String, "h264")
        XCTAssertEqual(measured["audio_codec"] as? String, "aac")
        XCTAssertEqual(Double(measured["duration_ms"] as? Int ?? 0) / 1000, max(video.duration, audio.duration), accuracy: 0.05)
    }

    func testRenameTakesAnyTextAndNeverTouchesTheFileName() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let id = try XCTUnwrap(try record(1, on: daemon).first)
        let pathBefore = try daemon.result("info", args: ["id": id])["path"] as? String
        let awkward = "日本語 🎥 «quoted» \"double\" 'single' / back\\slash ../../etc/passwd; DROP TABLE recordings; --"
        let renamed = try daemon.ctl(["rename", String(id.prefix(6)), awkward])
        XCTAssertEqual(renamed.status, 0, renamed.stderr)
        let info = try daemon.result("info", args: ["id": id])
        XCTAssertEqual(info["title"] as? String, awkward)
        XCTAssertEqual(info["path"] as? String, pathBefore)
        XCTAssertEqual(((try daemon.result("list")["items"] as? [[String: Any]])?.first?["title"]) as? String, awkward)
        for bad in ["", "   ", "line\nbreak", String(repeating: "x", count: 501)] {
            let response = try daemon.call("rename", args: ["id": id, "title": bad])
            XCTAssertEqual((response["error"] as? [String: Any])?["code"] as? String, "bad_request", bad)
        }
        XCTAssertEqual(try daemon.result("info", args: ["id": id])["title"] as? String, awkward)
    }

    func testDeleteRemovesFileThumbnailAndRowAndRespectsLocks() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let ids = try record(2, on: daemon)
        let info = try daemon.result("info", args: ["id": ids[0]])
        let path = try XCTUnwrap(info["path"] as? String), thumbnail = try XCTUnwrap(info["thumbnail"] as? String)

        XCTAssertEqual(try daemon.ctl(["lock", ids[0]]).status, 0)
        XCTAssertEqual(try daemon.result("info", args: ["id": ids[0]])["locked"] as? Bool, true)
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
        XCTAssertEqual((try daemon.call("info", args: ["id": ids[0]])["error"] as? [String: Any])?["code"] as? String, "not_found")
        XCTAssertEqual(try daemon.result("list")["total"] as? Int, 1)

        XCTAssertEqual(try daemon.ctl(["lock", ids[1]]).status, 0)
        XCTAssertEqual(try daemon.ctl(["delete", "--force", ids[1]]).status, 0, "--force deletes a locked clip")
        XCTAssertEqual(try daemon.result("list")["total"] as? Int, 0)

        let active = try XCTUnwrap(try daemon.result("record.start")["id"] as? String)
        XCTAssertEqual((try daemon.call("delete", args: ["id": active, "force": true])["error"] as? [String: Any])?["code"] as? String, "conflict")
        XCTAssertEqual(try daemon.result("list")["total"] as? Int, 1, "the recording in progress is listed")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertNotNil(try daemon.result("record.stop")["path"])
    }

    func testUnknownAndAmbiguousIdsAreClearErrors() throws {
        let daemon = try DaemonProcess()
        // Two files sharing a prefix, adopted at start-up (this also exercises adoption).
        let sample = try makeSampleClip()
        defer { try? FileManager.default.removeItem(atPath: sample) }
        let folder = daemon.dataDir + "/recordings/2026/01/02"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for suffix in ["1", "2"] {
            try FileManager.default.copyItem(atPath: sample, toPath: "\(folder)/aaaabbbb-0000-4000-8000-00000000000\(suffix).mp4")
        }
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertEqual(try daemon.result("list")["total"] as? Int, 2)
        let ambiguous = try daemon.ctl(["info", "aaaa"])
        XCTAssertNotEqual(ambiguous.status, 0)
        XCTAssertTrue(ambiguous.stderr.contains("ambiguous"), ambiguous.stderr)
        XCTAssertTrue(ambiguous.stderr.contains("aaaabbbb-0000-4000-8000-000000000001"), ambiguous.stderr)
        XCTAssertEqual(try daemon.result("info", args: ["id": "aaaabbbb-0000-4000-8000-000000000002"])["state"] as? String, "recovered")
        let unknown = try daemon.ctl(["info", "ffff"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(unknown.stderr.contains("no recording"), unknown.stderr)
        XCTAssertEqual((try daemon.call("delete", args: ["id": "ffff"])["error"] as? [String: Any])?["code"] as? String, "not_found")
        XCTAssertEqual((try daemon.call("rename", args: ["id": "../../x", "title": "t"])["error"] as? [String: Any])?["code"] as? String, "bad_request")
        XCTAssertEqual((try daemon.call("info", args: [:])["error"] as? [String: Any])?["code"] as? String, "bad_request")
        XCTAssertEqual((try daemon.call("delete", args: ["id": "aaaa", "force": "yes"])["error"] as? [String: Any])?["code"] as? String, "bad_request")
    }

    func testEventsArriveInOrder() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let listener = try EventListener(daemon, timeout: 10)

        let id = try XCTUnwrap(try record(1, on: daemon).first)
        _ = try daemon.result("rename", args: ["id": id, "title": "renamed"])
        _ = try daemon.result("lock", args: ["id": id])
        _ = try daemon.result("delete", args: ["id": id, "force": true])
        var seen: [(String, [String: Any])] = []
        while seen.count < 6 {
            let event = try listener.next()
            XCTAssertNotNil(event.time)
            seen.append((event.name, event.data))
        }
        XCTAssertEqual(seen.map(\.0), ["recording_started", "recording_stopped", "thumbnail_ready", "renamed", "locked", "deleted"])
        for (_, data) in seen { XCTAssertEqual(data["id"] as? String, id) }
        XCTAssertEqual(seen[3].1["title"] as? String, "renamed")
        XCTAssertNotNil(seen[1].1["path"] as? String)

        // The CLI prints them as they come.
        let cli = Process()
        cli.executableURL = URL(fileURLWithPath: DaemonProcess.binary)
        cli.arguments = ["ctl", "--socket", daemon.socketPath, "--json", "events"]
        let out = Pipe()
        cli.standardOutput = out
        try cli.run()
        Thread.sleep(forTimeInterval: 0.5)
        _ = try record(1, on: daemon)
        Thread.sleep(forTimeInterval: 0.3)
        cli.terminate()
        cli.waitUntilExit()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(printed.contains("\"event\":\"recording_started\""), printed)
        XCTAssertTrue(printed.contains("\"event\":\"recording_stopped\""), printed)
    }
}

/// A short valid MP4 made with gst-launch (independent of the daemon).
func makeSampleClip(seconds: Int = 1) throws -> String {
    let path = FileManager.default.temporaryDirectory.appendingPathComponent("sample-\(UUID().uuidString.prefix(8)).mp4").path
    let frames = seconds * 30
    let result = try ProcessOutcome.run("/usr/bin/gst-launch-1.0", ["-q", "-e",
        "videotestsrc", "num-buffers=\(frames)", "!", "video/x-raw,width=320,height=240,framerate=30/1", "!",
        "x264enc", "!", "h264parse", "!", "mp4mux", "name=mux", "!", "filesink", "location=\(path)",
        "audiotestsrc", "num-buffers=\(seconds * 47)", "!", "audioconvert", "!", "avenc_aac", "!", "aacparse", "!", "mux."])
    guard result.status == 0 else { throw DaemonError(message: "gst-launch failed: \(result.stderr)") }
    return path
}
