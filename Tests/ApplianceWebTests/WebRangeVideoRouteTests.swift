import ApplianceProtocol
import Engine
import Foundation
import HummingbirdTesting
import TestSupport
import XCTest

@testable import ApplianceApp
@testable import ApplianceWeb

/// `/api/timeline/video.mp4` in-process over three real MP4 files (gst-launch, 2 s each, H.264 and AAC) recorded
/// back to back: one video of all three that ffmpeg decodes, exact ranges across the index and the files, HEAD,
/// 304, a download name, the pieces header; bad and empty ranges refused with a reason, and a login required.
final class WebRangeVideoRouteTests: XCTestCase {
    /// Three files of 60 frames at 30 fps, starting at `start`, 2 s apart, in the library as finished recordings.
    private func addFiles(_ web: WebHarness, start: Date) async throws -> [Recording] {
        var recordings: [Recording] = []
        for i in 0..<3 {
            let id = UUID().uuidString.lowercased()
            let path = web.data.root + "/recordings/\(id).mp4"
            let made = try ProcessOutcome.run(
                "/usr/bin/gst-launch-1.0",
                [
                    "-q", "videotestsrc", "num-buffers=60", "pattern=ball", "!",
                    "video/x-raw,width=320,height=180,framerate=30/1", "!",
                    "x264enc", "key-int-max=30", "bframes=0", "tune=zerolatency", "!", "h264parse", "!", "mp4mux",
                    "name=mux", "!",
                    "filesink", "location=\(path)",
                    "audiotestsrc", "num-buffers=94", "samplesperbuffer=1024", "!", "audio/x-raw,rate=48000,channels=1",
                    "!",
                    "avenc_aac", "!", "aacparse", "!", "mux.",
                ], timeout: 60)
            XCTAssertEqual(made.status, 0, made.stderr)
            var recording = Recording(
                id: id, title: "segment \(i)", createdAt: start.addingTimeInterval(Double(2 * i)), path: path,
                state: .complete)
            (recording.endedAt, recording.durationMs) = (recording.createdAt.addingTimeInterval(2), 2000)
            try await web.library.insert(recording)
            recordings.append(recording)
            // Scrubbing previews at 0 and 1 s of each file (the third has none).
            if i < 2 {
                try FileManager.default.createDirectory(
                    atPath: web.data.thumbnailsDir, withIntermediateDirectories: true)
                let records =
                    ScrubPack.record(jpeg: [0xFF, 0xD8, UInt8(i)], offsetMs: 0)
                    + ScrubPack.record(jpeg: [0xFF, 0xD8, UInt8(i)], offsetMs: 1000)
                try ScrubPack.append(records, to: web.data.scrubPath(id: id))
            }
        }
        return recordings
    }

    func testOneVideoOverThreeFilesWithExactRanges() async throws {
        let web = try WebHarness()
        let start = Date().addingTimeInterval(-600).rounded()
        let files = try await addFiles(web, start: start)
        let query =
            "start=\(Timestamps.iso(start.addingTimeInterval(-1)))&end=\(Timestamps.iso(start.addingTimeInterval(7)))"
        let scratch = web.data.root + "/range.mp4"
        try await web.test { client in
            let whole = try await client.request("/api/timeline/video.mp4?" + query)
            XCTAssertEqual(whole.status, .ok, whole.text)
            XCTAssertEqual(whole.header("Content-Type"), "video/mp4")
            XCTAssertEqual(whole.header("Content-Length"), String(whole.data.count))
            XCTAssertEqual(whole.header("X-Video-Start"), Timestamps.iso(start))
            XCTAssertEqual(
                whole.header("X-Video-Pieces")?.split(separator: ",").count, 3,
                "a piece per file: \(whole.header("X-Video-Pieces") ?? "")")
            XCTAssertTrue(whole.header("X-Video-Pieces")?.hasPrefix("0.000@") == true)
            try whole.data.write(to: URL(fileURLWithPath: scratch))
            let decode = try ProcessOutcome.run(
                "/usr/bin/ffmpeg", ["-v", "error", "-i", scratch, "-f", "null", "-"], timeout: 60)
            XCTAssertEqual(decode.status, 0)
            XCTAssertEqual(decode.stderr, "", "decodes without an error")
            let count = try ProcessOutcome.run(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-count_frames", "-select_streams", "v:0", "-show_entries",
                    "stream=nb_read_frames", "-of", "csv=p=0", scratch,
                ], timeout: 60)
            XCTAssertEqual(
                count.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "180", "the three files' frames")

            // A range across the end of the index and into the first file, and one across two files.
            let moovEnd = try XCTUnwrap(Self.mediaStart(whole.data))
            let firstFile = try FileManager.default.attributesOfItem(atPath: files[0].path)[.size] as? Int ?? 0
            for (low, high) in [
                (moovEnd - 100, moovEnd + 5000), (moovEnd + firstFile / 2, moovEnd + firstFile + 10_000),
            ] {
                let part = try await client.request(
                    "/api/timeline/video.mp4?" + query, headers: ["Range: bytes=\(low)-\(high)"])
                XCTAssertEqual(part.status, .partialContent)
                XCTAssertEqual(part.header("Content-Range"), "bytes \(low)-\(high)/\(whole.data.count)")
                XCTAssertEqual(part.data, whole.data[low...high], "bytes \(low)-\(high) as in the whole video")
            }
            let tail = try await client.request("/api/timeline/video.mp4?" + query, headers: ["Range: bytes=-10"])
            XCTAssertEqual(tail.data, whole.data.suffix(10))
            let beyond = try await client.request(
                "/api/timeline/video.mp4?" + query, headers: ["Range: bytes=\(whole.data.count)-"])
            XCTAssertEqual(beyond.status, .rangeNotSatisfiable)

            let head = try await client.request("/api/timeline/video.mp4?" + query, method: .head)
            XCTAssertEqual(head.status, .ok)
            XCTAssertEqual(head.header("Content-Length"), String(whole.data.count))
            XCTAssertTrue(head.data.isEmpty)
            let etag = try XCTUnwrap(whole.header("ETag"))
            let again = try await client.request(
                "/api/timeline/video.mp4?" + query, headers: ["If-None-Match: \(etag)"])
            XCTAssertEqual(again.status, .notModified)
            let download = try await client.request("/api/timeline/video.mp4?download=1&" + query, method: .head)
            XCTAssertTrue(
                download.header("Content-Disposition")?.hasPrefix("attachment; filename=\"appliance-") == true)

            let track = try await client.request("/api/timeline/scrub.vtt?" + query)
            XCTAssertEqual(track.status, .ok)
            let cues = track.text.components(separatedBy: "\n\n").dropFirst().filter { !$0.isEmpty }
            XCTAssertEqual(
                cues.map { $0.prefix(12) }, ["00:00:00.000", "00:00:01.000", "00:00:02.000", "00:00:03.000"], track.text
            )
            XCTAssertTrue(cues[2].hasSuffix("/media/\(files[1].id)/scrub/0.jpg"), cues[2])
            XCTAssertTrue(cues[3].hasPrefix("00:00:03.000 --> 00:00:06.000"), "the last to the video's end: \(cues[3])")

            // From the middle of the second file: its keyframe at 1 s, then the third file.
            let inside =
                """
                start=\(Timestamps.iso(start.addingTimeInterval(3.5)))&end=\
                \(Timestamps.iso(start.addingTimeInterval(7)))
                """
            let later = try await client.request("/api/timeline/video.mp4?" + inside, method: .head)
            XCTAssertEqual(later.header("X-Video-Start"), Timestamps.iso(start.addingTimeInterval(3)))
            let laterTrack = try await client.request("/api/timeline/scrub.vtt?" + inside)
            XCTAssertTrue(
                laterTrack.text.contains("00:00:00.000 --> 00:00:03.000\n/media/\(files[1].id)/scrub/1.jpg"),
                "the second file's preview at 1 s first: \(laterTrack.text)")
        }
    }

    /// Where the media begins: after `ftyp`, `moov` and the `mdat` header.
    static func mediaStart(_ data: Data) -> Int? {
        var offset = 0
        while offset + 8 <= data.count {
            let size = Int(data[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) })
            let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
            if type == "mdat" { return offset + (size == 1 ? 16 : 8) }
            guard size >= 8 else { return nil }
            offset += size
        }
        return nil
    }

    func testBadAndEmptyRangesAreRefusedAndALoginIsNeeded() async throws {
        let web = try WebHarness()
        try await web.test { client in
            let cases: [(String, String)] = [
                ("", "start must be a moment"),
                ("start=2026-11-26T10:00:00Z&end=yesterday", "end must be a moment"),
                ("start=2026-11-26T10:00:00Z&end=2026-11-26T09:00:00Z", "start must be before end"),
                ("start=2026-11-26T10:00:00Z&end=2026-11-26T14:00:00Z", "at most 3 hours"),
                (
                    "start=2026-11-26T10:00:00Z&end=2026-11-26T11:00:00Z&channel=nowhere",
                    "the channels are main"
                ),
            ]
            for (query, reason) in cases {
                let answer = try await client.request("/api/timeline/video.mp4?" + query)
                XCTAssertEqual(answer.status, .badRequest, query)
                XCTAssertTrue(answer.text.contains(reason), "\(query): \(answer.text)")
            }
            let empty = try await client.request(
                "/api/timeline/video.mp4?start=2026-11-26T10:00:00Z&end=2026-11-26T11:00:00Z")
            XCTAssertEqual(empty.status, .notFound)
            XCTAssertTrue(empty.text.contains("nothing playable was recorded"), empty.text)
            let anonymous = try await client.request(
                "/api/timeline/video.mp4?start=2026-11-26T10:00:00Z&end=2026-11-26T11:00:00Z", auth: false)
            XCTAssertEqual(anonymous.status, .unauthorized)
        }
    }
}

extension Date {
    /// To the whole millisecond, as the library stores times.
    fileprivate func rounded() -> Date { Date(timeIntervalSince1970: (timeIntervalSince1970 * 1000).rounded() / 1000) }
}
