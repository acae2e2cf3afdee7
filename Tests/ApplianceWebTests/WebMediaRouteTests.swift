import ApplianceProtocol
import Foundation
import HummingbirdTesting
import XCTest

/// The media routes' Range and caching rules, in-process: bytes compared with the file on disk. (One end-to-end
/// test in WebHTTPTests still reads a recorded clip over a real socket, with a raw HEAD.)
final class WebMediaRouteTests: XCTestCase {
    func testVideoRanges() async throws {
        let web = try WebHarness()
        let (clip, video, _) = try await web.addRecording()
        let length = video.count
        let path = "/media/\(clip.id)/video"
        try await web.test { client in
            let whole = try await client.request(path)
            XCTAssertEqual(whole.status, .ok)
            XCTAssertEqual(whole.header("Accept-Ranges"), "bytes")
            XCTAssertEqual(whole.header("Content-Length"), String(length))
            XCTAssertEqual(whole.header("Content-Type"), "video/mp4")
            XCTAssertNil(whole.header("Content-Range"))
            XCTAssertNotNil(whole.header("ETag"))
            XCTAssertNotNil(whole.header("Last-Modified"))
            XCTAssertNil(whole.header("Content-Disposition"), "inline unless ?download=1")
            XCTAssertEqual(whole.data, video)

            // Safari's probe, a middle range, a last byte past the end (clamped), open-ended and suffix ranges.
            for (range, expected) in [
                ("bytes=0-1", 0..<2), ("bytes=100-199", 100..<200),
                ("bytes=\(length - 5)-\(length + 100)", length - 5..<length),
                ("bytes=\(length / 2)-", length / 2..<length), ("bytes=\(length - 1)-", length - 1..<length),
                ("bytes=-10", length - 10..<length), ("bytes=-\(length * 2)", 0..<length),
            ] {
                let r = try await client.request(path, headers: ["Range: \(range)"])
                XCTAssertEqual(r.status, .partialContent, range)
                XCTAssertEqual(
                    r.header("Content-Range"), "bytes \(expected.lowerBound)-\(expected.upperBound - 1)/\(length)",
                    range)
                XCTAssertEqual(r.header("Content-Length"), String(expected.count), range)
                XCTAssertEqual(r.data, video.subdata(in: expected), range)
            }
            for range in ["bytes=\(length)-", "bytes=\(length + 5)-\(length + 10)", "bytes=-0"] {
                let r = try await client.request(path, headers: ["Range: \(range)"])
                XCTAssertEqual(r.status, .rangeNotSatisfiable, range)
                XCTAssertEqual(r.header("Content-Range"), "bytes */\(length)", range)
                XCTAssertTrue(r.data.isEmpty, "\(range): \(r.data.count) bytes")
            }
            // What the server does not understand (another unit, several ranges, bad syntax) is ignored.
            for range in [
                "bytes=0-1,5-6", "items=0-1", "bytes=5-2", "bytes=abc", "bytes=--1", "bytes=1-2-3", "bytes=+1-2",
                "bytes=0x10-",
            ] {
                let r = try await client.request(path, headers: ["Range: \(range)"])
                XCTAssertEqual(r.status, .ok, range)
                XCTAssertNil(r.header("Content-Range"), range)
                XCTAssertEqual(r.data, video, range)
            }
        }
    }

    func testValidatorsHeadAndDownload() async throws {
        let web = try WebHarness()
        let (clip, video, _) = try await web.addRecording()
        let path = "/media/\(clip.id)/video"
        try await web.test { client in
            let whole = try await client.request(path)
            let etag = try XCTUnwrap(whole.header("ETag"))
            let lastModified = try XCTUnwrap(whole.header("Last-Modified"))
            for validator in [etag, lastModified] {
                let r = try await client.request(path, headers: ["Range: bytes=100-199", "If-Range: \(validator)"])
                XCTAssertEqual(r.status, .partialContent, "If-Range: \(validator)")
                XCTAssertEqual(r.data, video.subdata(in: 100..<200))
            }
            for stale in ["\"0-0\"", "W/\(etag)", "Thu, 01 Jan 2015 00:00:00 GMT"] {
                let r = try await client.request(path, headers: ["Range: bytes=100-199", "If-Range: \(stale)"])
                XCTAssertEqual(r.status, .ok, "If-Range: \(stale) → the whole file")
                XCTAssertNil(r.header("Content-Range"), stale)
                XCTAssertEqual(r.data, video, stale)
            }
            for header in [
                "If-None-Match: \(etag)", "If-None-Match: \"other\", \(etag)", "If-Modified-Since: \(lastModified)",
            ] {
                let r = try await client.request(path, headers: [header])
                XCTAssertEqual(r.status, .notModified, header)
                XCTAssertTrue(r.data.isEmpty, header)
                XCTAssertEqual(r.header("ETag"), etag, header)
            }
            for header in ["If-None-Match: \"0-0\"", "If-Modified-Since: Thu, 01 Jan 2015 00:00:00 GMT"] {
                let r = try await client.request(path, headers: [header])
                XCTAssertEqual(r.status, .ok, header)
                XCTAssertEqual(r.data, video, header)
            }

            let head = try await client.request(path, method: .head)
            XCTAssertEqual(head.status, .ok)
            XCTAssertEqual(head.header("Content-Length"), String(video.count))
            XCTAssertEqual(head.header("Accept-Ranges"), "bytes")
            XCTAssertTrue(head.data.isEmpty, "a HEAD answer has no body")
            let rangedHead = try await client.request(path, method: .head, headers: ["Range: bytes=-10"])
            XCTAssertEqual(rangedHead.status, .partialContent)
            XCTAssertEqual(rangedHead.header("Content-Length"), "10")

            let download = try await client.request(path + "?download=1")
            XCTAssertEqual(download.status, .ok)
            XCTAssertEqual(
                download.header("Content-Disposition"),
                "attachment; filename=\"A_walk_in_the_park-\(clip.id.prefix(8)).mp4\"")
            XCTAssertEqual(download.data, video)
            let rangedDownload = try await client.request(path + "?download=1", headers: ["Range: bytes=0-1"])
            XCTAssertEqual(rangedDownload.status, .partialContent)
            XCTAssertEqual(rangedDownload.data, video.prefix(2))
        }
    }

    func testThumbnailsAndSnapshotsFollowTheSameRules() async throws {
        let web = try WebHarness()
        let (clip, _, thumbnail) = try await web.addRecording()
        let snapshot = try web.addSnapshot()
        try await web.test { client in
            for (path, bytes) in [
                ("/media/\(clip.id)/thumbnail", thumbnail), ("/media/snapshots/\(snapshot.id)", snapshot.data),
            ] {
                let whole = try await client.request(path)
                XCTAssertEqual(whole.status, .ok, path)
                XCTAssertEqual(whole.header("Content-Type"), "image/jpeg", path)
                XCTAssertEqual(whole.header("Accept-Ranges"), "bytes", path)
                XCTAssertEqual(whole.data, bytes, path)
                let middle = try await client.request(path, headers: ["Range: bytes=100-199"])
                XCTAssertEqual(middle.status, .partialContent, path)
                XCTAssertEqual(middle.header("Content-Range"), "bytes 100-199/\(bytes.count)", path)
                XCTAssertEqual(middle.data, bytes.subdata(in: 100..<200), path)
                let past = try await client.request(path, headers: ["Range: bytes=\(bytes.count)-"])
                XCTAssertEqual(past.status, .rangeNotSatisfiable, path)
                XCTAssertEqual(past.header("Content-Range"), "bytes */\(bytes.count)", path)
                let cached = try await client.request(
                    path, headers: ["If-None-Match: \(try XCTUnwrap(whole.header("ETag")))"])
                XCTAssertEqual(cached.status, .notModified, path)
            }
        }
    }

    func testUnknownIdsAndFailedClipsAre404WithoutTouchingTheDisk() async throws {
        let web = try WebHarness()
        let (clip, _, _) = try await web.addRecording()
        let failed = try await web.library.update(id: clip.id) {
            $0.state = .failed
            $0.failureReason = "no frame"
        }
        try await web.test { client in
            for path in [
                "/media/\(UUID().uuidString.lowercased())/video", "/media/\(failed.id)/video",
                "/media/..%2F..%2Fetc%2Fpasswd/video",
                "/media/snapshots/\(UUID().uuidString.lowercased())", "/media/snapshots/..%2Fappliance.sqlite",
            ] {
                let r = try await client.request(path)
                XCTAssertEqual(r.status, .notFound, path)
                XCTAssertEqual(r.errorCode, "not_found", path)
            }
        }
        XCTAssertTrue(web.sent.isEmpty, "media never goes through commands: \(web.sent)")
    }
}
