import Foundation
import XCTest

/// Dashcam mode: `segment_s` loop recording, autostart, and files without reserved padding.
final class LoopRecordingTests: XCTestCase {
    /// The segments of the latest loop recording, in order.
    private func segments(_ daemon: DaemonProcess) throws -> [[String: Any]] {
        let list = try daemon.result("list", args: ["per_page": 200])
        let items = try XCTUnwrap(list["items"] as? [[String: Any]])
        let group = try XCTUnwrap(items.first?["group"] as? String)
        return items.filter { $0["group"] as? String == group }.sorted { ($0["segment"] as? Int ?? 0) < ($1["segment"] as? Int ?? 0) }
    }

    /// segment_s = 2 for 20 s: 10 segments, each a whole file that starts on a keyframe; decoded in order they show
    /// every frame once (the picture moves exactly one step from each frame to the next, across every cut), and
    /// the audio adds up to the video within one AAC frame.
    func testSegmentsAreGapFree() throws {
        let daemon = try DaemonProcess(extra: FrameContinuity.config + "\n[recording]\nsegment_s = 2.0", cameras: FrameContinuity.camera)
        try daemon.start()
        defer { daemon.stop() }
        let events = try EventListener(daemon, timeout: 30)
        let started = try daemon.result("record.start")
        Thread.sleep(forTimeInterval: 20.2)
        let last = try daemon.result("record.stop")
        XCTAssertEqual(last["group"] as? String, started["id"] as? String)
        XCTAssertEqual(last["stop_reason"] as? String, "request")
        var closed = 0
        while closed < 10, let event = try? events.next() {
            if event.name == "segment_closed" {
                closed += 1
                XCTAssertEqual(event.data["stop_reason"] as? String, "segment")
            }
        }
        XCTAssertEqual(closed, 10, "segment_closed events")

        let segments = try segments(daemon)
        XCTAssertEqual(segments.map { $0["segment"] as? Int ?? 0 }, Array(1...segments.count))
        XCTAssertEqual(segments.count, 11, "10 whole segments and the 0.2 s the stop cut")
        let paths = try segments.map { try XCTUnwrap($0["path"] as? String) }
        var videoFrames = 0, audioFrames = 0
        for (index, path) in paths.enumerated() {
            let probe = try MediaProbe(path)
            XCTAssertEqual(try probe.decodeErrors(), "", path)
            let flags = try CommandResult.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                                    "packet=flags", "-of", "csv=p=0", path]).stdout
            XCTAssertTrue(flags.hasPrefix("K"), "segment \(index + 1) does not start on a keyframe")
            let video = try XCTUnwrap(probe.video), audio = try XCTUnwrap(probe.audio)
            if index < 10 { XCTAssertEqual(video.frames, 60, "segment \(index + 1): 2 s at 30 fps") }
            videoFrames += video.frames
            audioFrames += audio.frames
            let layout = try Mp4Layout(path)
            XCTAssertEqual(layout.atoms.map(\.type), ["ftyp", "moov", "mdat"], "segment \(index + 1) carries padding")
            if index < 10 { XCTAssertLessThanOrEqual(layout.overhead, 1.01, "segment \(index + 1): bytes on disk over media") }
        }
        let rows = try FrameContinuity.rows(of: paths)
        XCTAssertEqual(rows.count, videoFrames)
        // The judge itself sees a lost and a repeated frame.
        XCTAssertEqual(FrameContinuity.breaks(in: Array(rows[0..<30] + rows[31...])).map(\.movement), [2 * FrameContinuity.speed])
        XCTAssertEqual(FrameContinuity.breaks(in: Array(rows[0...30] + rows[30...])).map(\.movement), [0])
        let breaks = FrameContinuity.breaks(in: rows)
        XCTAssertTrue(breaks.isEmpty, "frames lost or repeated at \(breaks.prefix(5)) (movement \(FrameContinuity.speed) expected)")
        let videoS = Double(videoFrames) / 30, audioS = Double(audioFrames) * 1024 / 48_000
        XCTAssertEqual(audioS, videoS, accuracy: 1024 / 48_000 + 0.0001, "audio \(audioS) s, video \(videoS) s")
    }

    /// `autostart`: the daemon records from start, and again after SIGKILL (the killed file is recovered).
    func testAutostartResumesAfterKill() throws {
        let daemon = try DaemonProcess(extra: "[recording]\nautostart = true\nsegment_s = 2.0")
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertTrue(try daemon.waitFor(5) { try daemon.result("status")["state"] as? String == "recording" })
        Thread.sleep(forTimeInterval: 3.5)
        daemon.stop(signal: SIGKILL)

        try daemon.start()
        XCTAssertTrue(try daemon.waitFor(5) { try daemon.result("status")["state"] as? String == "recording" })
        let status = try daemon.result("status")
        let recovered = try XCTUnwrap((status["recovery"] as? [String: Any])?["recovered"] as? [String])
        XCTAssertEqual(recovered.count, 1, "the segment being written at the kill")
        let stopped = try daemon.result("record.stop")
        XCTAssertGreaterThan(stopped["duration_ms"] as? Int ?? 0, 0)
        let list = try XCTUnwrap(try daemon.result("list", args: ["per_page": 50])["items"] as? [[String: Any]])
        for item in list where item["state"] as? String != "failed" {
            let path = try XCTUnwrap(item["path"] as? String)
            XCTAssertEqual(try MediaProbe(path).decodeErrors(), "", path)
            XCTAssertEqual(try Mp4Layout(path).atoms.map(\.type), ["ftyp", "moov", "mdat"], "\(item["state"] ?? "") clip carries padding")
        }
    }

    /// A 3 s clip reserved for max_duration_s = 3600 is media and a small index, nothing else.
    func testShortClipHasNoPadding() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        _ = try daemon.result("record.start")
        Thread.sleep(forTimeInterval: 3)
        let clip = try daemon.result("record.stop")
        let path = try XCTUnwrap(clip["path"] as? String)
        let layout = try Mp4Layout(path)
        XCTAssertEqual(layout.atoms.map(\.type), ["ftyp", "moov", "mdat"])
        XCTAssertLessThanOrEqual(layout.overhead, 1.01)
        XCTAssertEqual(Int64(clip["size_bytes"] as? Int ?? -1), layout.fileSize)
        let probe = try MediaProbe(path)
        XCTAssertEqual(try probe.decodeErrors(), "")
        XCTAssertEqual(try XCTUnwrap(probe.video).duration, 3, accuracy: 0.2)
    }
}
