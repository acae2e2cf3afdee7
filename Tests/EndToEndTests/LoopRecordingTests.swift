import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Dashcam mode: `segment_s` loop recording, autostart, and files without reserved padding.
final class LoopRecordingTests: XCTestCase {
    /// The segments of the latest loop recording, in order.
    private func segments(_ daemon: DaemonProcess) throws -> [Recording] {
        let list = try daemon.list(perPage: 200)
        let items = list.items
        let group = try XCTUnwrap(items.first?.group)
        return items.filter { $0.group == group }.sorted { ($0.segment ?? 0) < ($1.segment ?? 0) }
    }

    /// segment_s = 2 for 20 s: 10 segments, each a whole file that starts on a keyframe; decoded in order they show
    /// every frame once (the picture moves exactly one step from each frame to the next, across every cut), and
    /// the audio adds up to the video within one AAC frame.
    func testSegmentsAreGapFree() throws {
        let daemon = try DaemonProcess(
            extra: FrameContinuity.config + "\n[recording]\nsegment_s = 2.0", cameras: FrameContinuity.camera)
        try daemon.start()
        defer { daemon.stop() }
        let events = try EventListener(daemon, timeout: 30)
        let started = try daemon.recordStart()
        try daemon.waitUntilElapsed(20.2)
        let last = try daemon.recordStop()
        XCTAssertEqual(last.group, started.id)
        XCTAssertEqual(last.stopReason, .request)
        var closed = 0
        while closed < 10, let event = try? events.next() {
            if event.name == "segment_closed" {
                closed += 1
                XCTAssertEqual(event.data["stop_reason"] as? String, "segment")
            }
        }
        XCTAssertEqual(closed, 10, "segment_closed events")

        let segments = try segments(daemon)
        XCTAssertEqual(segments.map { $0.segment ?? 0 }, Array(1...segments.count))
        XCTAssertEqual(segments.count, 11, "10 whole segments and the 0.2 s the stop cut")
        let paths = segments.map(\.path)
        var videoFrames = 0
        var audioFrames = 0
        for (index, path) in paths.enumerated() {
            let probe = try MediaProbe(path)
            XCTAssertEqual(try probe.decodeErrors(), "", path)
            let flags = try ProcessOutcome.run(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries",
                    "packet=flags", "-of", "csv=p=0", path,
                ]
            ).stdout
            XCTAssertTrue(flags.hasPrefix("K"), "segment \(index + 1) does not start on a keyframe")
            let video = try XCTUnwrap(probe.video)
            let audio = try XCTUnwrap(probe.audio)
            if index < 10 { XCTAssertEqual(video.frames, 60, "segment \(index + 1): 2 s at 30 fps") }
            videoFrames += video.frames
            audioFrames += audio.frames
            let layout = try Mp4Layout(path)
            XCTAssertEqual(
                layout.atoms.map(\.type), ["ftyp", "free", "mdat", "moov"],
                "segment \(index + 1) is not a finished fragmented file")
            // No reserved room: what is not media is the index (about 12 bytes a sample) and, inside the mdat, the
            // fragment headers written while recording (about 25 bytes a sample), about 1 % at this test's bitrate.
            if index < 10 {
                XCTAssertLessThanOrEqual(layout.overhead, 1.02, "segment \(index + 1): bytes on disk over media")
            }
        }
        let rows = try FrameContinuity.rows(of: paths)
        XCTAssertEqual(rows.count, videoFrames)
        // The judge itself sees a lost and a repeated frame.
        XCTAssertEqual(
            FrameContinuity.breaks(in: Array(rows[0..<30] + rows[31...])).map(\.movement), [2 * FrameContinuity.speed])
        XCTAssertEqual(FrameContinuity.breaks(in: Array(rows[0...30] + rows[30...])).map(\.movement), [0])
        let breaks = FrameContinuity.breaks(in: rows)
        XCTAssertTrue(
            breaks.isEmpty,
            "frames lost or repeated at \(breaks.prefix(5)) (movement \(FrameContinuity.speed) expected)")
        let videoS = Double(videoFrames) / 30
        let audioS = Double(audioFrames) * 1024 / 48_000
        XCTAssertEqual(audioS, videoS, accuracy: 1024 / 48_000 + 0.0001, "audio \(audioS) s, video \(videoS) s")

        // A drive is one entry in a grouped list, its segments on request.
        let grouped = try daemon.list(grouped: true).items
        XCTAssertEqual(grouped.count, 1)
        XCTAssertEqual(grouped.first?.segments, 11)
        XCTAssertEqual(Double(grouped.first?.durationMs ?? 0), videoS * 1000, accuracy: 50)
        let prefix = String(segments[3].id.prefix(8))
        let listed = try daemon.ctl(["--json", "list", "--group", prefix, "--per-page", "50"])
        XCTAssertEqual((listed.json?["items"] as? [[String: Any]])?.count, 11, listed.stderr)

        // Export by time: the five segments 2…6 become one file, frame-exact, without re-encoding.
        let fromDate = segments[1].createdAt.addingTimeInterval(0.1)
        let toDate = segments[6].createdAt.addingTimeInterval(-0.1)
        let exported = try daemon.ctl([
            "--json", "export", "--from", ISO8601DateFormatter.withMilliseconds.string(from: fromDate),
            "--to", ISO8601DateFormatter.withMilliseconds.string(from: toDate), "--title", "incident",
        ])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertEqual((exported.json?["sources"] as? [String]), segments[1...5].map(\.id))
        let clip = try XCTUnwrap(exported.json?["recording"] as? [String: Any])
        XCTAssertEqual(clip["title"] as? String, "incident")
        let joined = try MediaProbe(try XCTUnwrap(clip["path"] as? String))
        XCTAssertEqual(try joined.decodeErrors(), "")
        XCTAssertEqual(joined.video?.frames, 300)
        XCTAssertEqual(try XCTUnwrap(joined.video).duration, 10, accuracy: 1.0 / 30)
        XCTAssertEqual(try XCTUnwrap(joined.audio).duration, 10, accuracy: 1024 / 48_000 + 0.001)
        XCTAssertTrue(
            FrameContinuity.breaks(in: try FrameContinuity.rows(of: [joined.path])).isEmpty,
            "the export skips or repeats a frame")
        // Bad requests are one-line errors.
        let nothing = try daemon.ctl(["export", "--from", "2001-01-01T00:00:00Z", "--to", "2001-01-02T00:00:00Z"])
        XCTAssertEqual(nothing.status, 1)
        XCTAssertTrue(nothing.stderr.contains("no finished clip between"), nothing.stderr)
        XCTAssertNotEqual(try daemon.ctl(["export", "--from", "yesterday", "--to", "today"]).status, 0)
    }

    /// A stop that comes after the next segment is attached but before its cut (the last half second of a 1 s
    /// segment): the recording ends at the stop with every frame, and the segment that never began leaves nothing.
    func testStopJustBeforeACutLosesNothing() throws {
        let daemon = try DaemonProcess(
            extra: FrameContinuity.config + "\n[recording]\nsegment_s = 1.0", cameras: FrameContinuity.camera)
        try daemon.start()
        defer { daemon.stop() }
        for _ in 0..<3 {
            let started = try daemon.recordStart()
            try daemon.waitUntilElapsed(2.75)
            let stopped = try daemon.recordStop()
            XCTAssertEqual(stopped.group, started.id)
            let segments = try daemon.list(group: started.id, perPage: 20).items
            XCTAssertEqual(
                segments.map(\.state.rawValue), Array(repeating: "complete", count: segments.count), "\(segments)")
            XCTAssertEqual(segments.map { $0.segment ?? 0 }, Array(1...segments.count))
            let rows = try FrameContinuity.rows(of: segments.map(\.path))
            let breaks = FrameContinuity.breaks(in: rows)
            XCTAssertTrue(breaks.isEmpty, "frames lost or repeated at \(breaks) in \(segments.count) segments")
            XCTAssertEqual(Double(rows.count) / 30, 2.75, accuracy: 0.4)
        }
        XCTAssertTrue(daemon.partialFiles().isEmpty, "\(daemon.partialFiles())")
    }

    /// `autostart`: the daemon records from start, and again after SIGKILL (the killed file is recovered).
    func testAutostartResumesAfterKill() throws {
        let daemon = try DaemonProcess(extra: "[recording]\nautostart = true\nsegment_s = 2.0")
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertTrue(try daemon.waitFor(5) { try daemon.status().state == .recording })
        try daemon.waitUntilElapsed(3.5)
        daemon.stop(signal: SIGKILL)

        try daemon.start()
        XCTAssertTrue(try daemon.waitFor(5) { try daemon.status().state == .recording })
        let status = try daemon.status()
        let recovered = try XCTUnwrap(status.recovery?.recovered)
        XCTAssertEqual(recovered.count, 1, "the segment being written at the kill")
        let stopped = try daemon.recordStop()
        XCTAssertGreaterThan(stopped.durationMs, 0)
        let list = try daemon.list(perPage: 50).items
        for item in list where item.state != .failed {
            let path = item.path
            XCTAssertEqual(try MediaProbe(path).decodeErrors(), "", path)
            XCTAssertEqual(
                try Mp4Layout(path).atoms.map(\.type), ["ftyp", "free", "mdat", "moov"],
                "\(item.state.rawValue) clip is not a finished file")
        }
    }

    /// A 3 s clip reserved for max_duration_s = 3600 is media and a small index, nothing else.
    func testShortClipHasNoPadding() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        _ = try daemon.recordStart()
        try daemon.waitUntilRecorded(3)
        let clip = try daemon.recordStop()
        let path = clip.path
        let layout = try Mp4Layout(path)
        XCTAssertEqual(layout.atoms.map(\.type), ["ftyp", "free", "mdat", "moov"])
        XCTAssertLessThanOrEqual(layout.overhead, 1.01)
        XCTAssertEqual(clip.sizeBytes, layout.fileSize)
        let probe = try MediaProbe(path)
        XCTAssertEqual(try probe.decodeErrors(), "")
        XCTAssertEqual(try XCTUnwrap(probe.video).duration, 3, accuracy: 0.2)
    }
}

final class ReservedLayoutTests: XCTestCase {
    /// `file_layout = "reserved"` (the earlier scheme, kept to measure against): the index in front, and the room
    /// reserved for an hour removed when the clip is finished.
    func testReservedLayoutClipIsCompactedWithItsIndexInFront() throws {
        let daemon = try DaemonProcess(extra: "[recording]\nfile_layout = \"reserved\"\n")
        try daemon.start()
        defer { daemon.stop() }
        _ = try daemon.recordStart()
        XCTAssertTrue(
            try daemon.waitFor(30) { (try daemon.status().recording?.durationMs ?? 0) >= 3_000 }, "3 s recorded")
        let clip = try daemon.recordStop()
        let layout = try Mp4Layout(clip.path)
        XCTAssertEqual(layout.atoms.map(\.type), ["ftyp", "moov", "mdat"])
        XCTAssertLessThanOrEqual(layout.overhead, 1.01, "no reserved room left")
        XCTAssertEqual(try MediaProbe(clip.path).decodeErrors(), "")
    }
}

extension ISO8601DateFormatter {
    static var withMilliseconds: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
