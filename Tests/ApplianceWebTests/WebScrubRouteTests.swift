import ApplianceProtocol
import Engine
import Foundation
import HTTPTypes
import HummingbirdTesting
import XCTest

@testable import ApplianceApp
@testable import ApplianceWeb

/// Scrubbing previews over HTTP in-process: a clip's WebVTT thumbnails track (cues from one preview to the next, the
/// last to the clip's end, each naming its JPEG), the JPEGs themselves, and the preview of a moment of the timeline
/// with when it was taken; moments without one, previews that do not exist and bad times refused.
final class WebScrubRouteTests: XCTestCase {
    func testATrackItsPicturesAndThePreviewOfAMoment() async throws {
        let web = try WebHarness()
        let start = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 600).rounded())
        var row = Recording(
            id: UUID().uuidString.lowercased(), title: "ten minutes ago", createdAt: start,
            path: web.data.root + "/recordings/clip.mp4", state: .complete)
        (row.endedAt, row.durationMs) = (start.addingTimeInterval(5), 5000)
        try await web.library.insert(row)
        let clip = row
        // Files after it, as a loop's segments follow one another: the moment still finds the file that holds it.
        for n in 1...6 {
            var next = Recording(
                id: UUID().uuidString.lowercased(), title: "segment \(n)",
                createdAt: start.addingTimeInterval(Double(5 * n)),
                path: web.data.root + "/recordings/next-\(n).mp4", state: .complete)
            (next.endedAt, next.durationMs) = (next.createdAt.addingTimeInterval(5), 5000)
            try await web.library.insert(next)
        }
        let jpegs = (0..<3).map { n in Data([0xFF, 0xD8, UInt8(n), 0xFF, 0xD9]) }
        var records = Data()
        for (n, jpeg) in jpegs.enumerated() {
            records.append(ScrubPack.record(jpeg: Array(jpeg), offsetMs: UInt32(n * 2000)))
        }
        try FileManager.default.createDirectory(atPath: web.data.thumbnailsDir, withIntermediateDirectories: true)
        try ScrubPack.append(records, to: web.data.scrubPath(id: clip.id))
        try await web.test { client in
            let track = try await client.request("/media/\(clip.id)/scrub.vtt")
            XCTAssertEqual(track.status, .ok)
            XCTAssertEqual(track.header("Content-Type"), "text/vtt; charset=utf-8")
            XCTAssertEqual(
                track.text,
                """
                WEBVTT

                00:00:00.000 --> 00:00:02.000
                /media/\(clip.id)/scrub/0.jpg

                00:00:02.000 --> 00:00:04.000
                /media/\(clip.id)/scrub/1.jpg

                00:00:04.000 --> 00:00:05.000
                /media/\(clip.id)/scrub/2.jpg

                """)
            for (n, jpeg) in jpegs.enumerated() {
                let picture = try await client.request("/media/\(clip.id)/scrub/\(n).jpg")
                XCTAssertEqual(picture.status, .ok)
                XCTAssertEqual(picture.data, jpeg)
                XCTAssertEqual(picture.header("Content-Type"), "image/jpeg")
            }
            let moment = try await client.request(
                "/api/timeline/scrub.jpg?at=" + Timestamps.iso(start.addingTimeInterval(3.1)))
            XCTAssertEqual(moment.status, .ok)
            XCTAssertEqual(moment.data, jpegs[1], "the preview taken at 2 s")
            XCTAssertEqual(moment.header("X-Scrub-At"), Timestamps.iso(start.addingTimeInterval(2)))
            XCTAssertEqual(moment.header("X-Recording-Id"), clip.id)

            for (path, status) in [
                ("/media/\(clip.id)/scrub/3.jpg", HTTPResponse.Status.notFound),
                ("/media/\(clip.id)/scrub/x.jpg", .notFound),
                ("/media/\(clip.id)/scrub/-1.jpg", .notFound),
                ("/api/timeline/scrub.jpg?at=" + Timestamps.iso(start.addingTimeInterval(-60)), .notFound),
                ("/api/timeline/scrub.jpg?at=noon", .badRequest), ("/api/timeline/scrub.jpg", .badRequest),
                // A row from before channels is the first channel's; a channel the device lacks is refused.
                ("/api/timeline/scrub.jpg?at=" + Timestamps.iso(start.addingTimeInterval(3.1)) + "&channel=main", .ok),
                (
                    "/api/timeline/scrub.jpg?at=" + Timestamps.iso(start.addingTimeInterval(3.1)) + "&channel=x",
                    .badRequest
                ),
            ] {
                let answer = try await client.request(path)
                XCTAssertEqual(answer.status, status, path)
            }
            let other = try await web.addRecording().0
            let none = try await client.request("/media/\(other.id)/scrub.vtt")
            XCTAssertEqual(none.status, .notFound, "a clip without previews")
            let anonymous = try await client.request("/media/\(clip.id)/scrub.vtt", auth: false)
            XCTAssertEqual(anonymous.status, .unauthorized)
        }
    }
}
