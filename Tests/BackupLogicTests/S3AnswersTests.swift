import Foundation
import NIOHTTP1
import XCTest

@testable import Backup

/// Reading S3's answers (XML, ETags, the server's clock), the digests sent with each body, and what each error
/// means for the queue.
final class S3AnswersTests: XCTestCase {
    func testXMLValuesAndElements() {
        let xml = """
            <ListPartsResult><Bucket>b</Bucket><IsTruncated>false</IsTruncated>
            <Part><PartNumber>1</PartNumber><ETag>&quot;0A1b&quot;</ETag><Size>5242880</Size></Part>
            <Part><PartNumber>2</PartNumber><ETag>"ff"</ETag><Size>12</Size></Part></ListPartsResult>
            """
        XCTAssertEqual(S3XML.value("Bucket", in: xml), "b")
        XCTAssertNil(S3XML.value("UploadId", in: xml))
        let parts = S3XML.elements("Part", in: xml)
        XCTAssertEqual(parts.count, 2)
        XCTAssertEqual(S3XML.etag(S3XML.value("ETag", in: parts[0])), "0a1b")
        XCTAssertEqual(S3XML.value("Size", in: parts[1]), "12")
        XCTAssertEqual(S3XML.decode("a &amp;lt; b"), "a &lt; b", "decoded once")
    }

    /// What moto answered for a one-part upload of ten 'a's: the part's ETag, then the joined object's.
    func testTheMultipartETagIsTheMD5OfThePartsMD5s() {
        let part = FileDigest.of(Data(repeating: UInt8(ascii: "a"), count: 10))
        XCTAssertEqual(part.md5, "e09c80c42fda55f9d992e59ca6b3307d")
        XCTAssertEqual(FileDigest.multipartETag(partMD5s: [part.md5]), "ac1f8aff40d191e27d29b7848a8d9abd-1")
    }

    func testAFilesRangeDigestIsThatOfItsBytes() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("digest-\(UUID().uuidString)").path
        let bytes = Data((0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let range = try await FileDigest.of(path, start: 1_000_001, length: 1_500_000)
        XCTAssertEqual(range, FileDigest.of(bytes.subdata(in: 1_000_001..<2_500_001)))
        let whole = try await FileDigest.of(path, length: Int64(bytes.count))
        XCTAssertEqual(whole.sha256, FileDigest.of(bytes).sha256)
        do {
            _ = try await FileDigest.of(path, start: 2_999_000, length: 5_000)
            XCTFail("a range past the end of the file")
        } catch RemoteError.verification {}
    }

    func testTheServersClockComesFromServerTimeOrElseDate() throws {
        var headers = HTTPHeaders()
        headers.add(name: "Date", value: "Sat, 28 Nov 2026 09:21:27 GMT")
        let fromBody = S3Client.Answer(
            status: 403, headers: headers,
            text: "<Error><Code>RequestTimeTooSkewed</Code><ServerTime>2026-11-28T10:00:00Z</ServerTime></Error>")
        XCTAssertEqual(S3Client.serverTime(fromBody)?.timeIntervalSince1970, 1_795_860_000)
        let fromDate = S3Client.Answer(
            status: 403, headers: headers, text: "<Error><Code>RequestTimeTooSkewed</Code></Error>")
        XCTAssertEqual(S3Client.serverTime(fromDate)?.timeIntervalSince1970, 1_795_857_687)
        XCTAssertTrue(S3Client.isSkew(code: "RequestTimeTooSkewed", message: ""))
        XCTAssertTrue(
            S3Client.isSkew(
                code: "AccessDenied", message: "difference between the request time and the server's time is too large")
        )
        XCTAssertFalse(S3Client.isSkew(code: "AccessDenied", message: "Access Denied"))
    }

    private func verdict(_ status: Int, _ code: String, _ message: String = "") -> String {
        switch BackupPolicy.classify(
            RemoteError.service(status, code: code, message: message, method: "PUT", path: "k", retryAfter: nil))
        {
        case .retry: "retry"
        case .pause(let reason): "pause: \(reason)"
        case .fail: "fail"
        }
    }

    func testRefusedKeysAndAMissingBucketPauseAndTheRestIsRetriedOrFails() {
        XCTAssertTrue(
            verdict(403, "SignatureDoesNotMatch").hasPrefix(
                "pause: the S3 service refused the credentials (HTTP 403 SignatureDoesNotMatch)"))
        XCTAssertTrue(verdict(403, "InvalidAccessKeyId").hasPrefix("pause: the S3 service refused"))
        XCTAssertTrue(verdict(404, "NoSuchBucket").hasPrefix("pause: the bucket does not exist"))
        XCTAssertTrue(
            BackupPolicy.isMissingBucket(
                RemoteError.service(404, code: "NoSuchBucket", message: "", method: "PUT", path: "k", retryAfter: nil)))
        XCTAssertTrue(
            BackupPolicy.isRefusedCredentials(
                RemoteError.service(403, code: "AccessDenied", message: "", method: "PUT", path: "k", retryAfter: nil)))
        for (status, code) in [
            (503, "SlowDown"), (500, "InternalError"), (400, "RequestTimeout"), (403, "RequestTimeTooSkewed"),
            (429, "x"),
        ] {
            XCTAssertEqual(verdict(status, code), "retry", code)
        }
        XCTAssertEqual(
            verdict(400, "AccessDenied", "the difference between the request time and the server's time is too large"),
            "retry")
        XCTAssertEqual(verdict(400, "EntityTooSmall"), "fail")
        XCTAssertEqual(verdict(400, "InvalidStorageClass"), "fail")
    }
}
