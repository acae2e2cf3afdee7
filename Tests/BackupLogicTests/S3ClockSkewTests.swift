import AsyncHTTPClient
import Foundation
import Settings
import SigV4
import TestSupport
import XCTest

@testable import Backup

/// A device clock an hour off, against a real `rclone serve s3` (which refuses requests more than 15 minutes off:
/// RequestTimeTooSkewed ahead, AccessDenied "…request time…" behind): the client's clock is this machine's plus its
/// offset, so the offset is set to ±1 h here. The first request is refused, the client takes the server's time from
/// the answer, signs again, and the object goes up; later requests use the corrected offset.
final class S3ClockSkewTests: XCTestCase {
    private var server: Process?
    private var root = ""

    override func tearDown() {
        if let server {
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        try? FileManager.default.removeItem(atPath: root)
    }

    private func startRclone() throws -> Int {
        // `make test` installs it (packaging/install-deps.sh --test); `make check` may run without.
        guard (try? ProcessOutcome.run("/usr/bin/env", ["rclone", "version"]))?.status == 0 else {
            throw XCTSkip("rclone is not installed (packaging/install-deps.sh --test installs it)")
        }
        root = FileManager.default.temporaryDirectory.appendingPathComponent("skew-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: root + "/backup", withIntermediateDirectories: true)
        let port = Int.random(in: 40000...60000)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "rclone", "serve", "s3", "--auth-key", "skew-key,skew-secret", "--addr", "127.0.0.1:\(port)", root,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        server = process
        let answers = {
            (try? ProcessOutcome.run(
                "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(port)/"]))?.stdout
                == "400"
        }
        XCTAssertTrue(
            Poll.until(timeout: 20, every: 0.1, { !process.isRunning || answers() }) && process.isRunning,
            "rclone serve s3 did not start")
        return port
    }

    private func client(port: Int, http: HTTPClient) throws -> S3Client {
        var config = ApplianceConfig.Backup()
        config.url = "s3://backup/skew"
        config.endpoint = "http://127.0.0.1:\(port)"
        config.accessKey = "skew-key"
        return try BackupTargets.s3Client(config, http: http, secret: "skew-secret")
    }

    func testAClockAnHourAheadOrBehindIsCorrectedFromTheServersAnswer() async throws {
        let port = try startRclone()
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        do {
            for offset in [3600.0, -3600.0] {
                let client = try client(port: port, http: http)
                client.clockOffset.withLock { $0 = offset }
                let body = Data("an hour off: \(offset)".utf8)
                let etag = try await client.putObject("skew/\(Int(offset)).txt", data: body)
                XCTAssertEqual(etag, FileDigest.of(body).md5)
                let corrected = client.clockOffset.withLock { $0 }
                XCTAssertLessThan(
                    abs(corrected), 60, "the offset now follows the server's clock (was \(offset), now \(corrected))")
                let head = try await client.headObject("skew/\(Int(offset)).txt")
                XCTAssertEqual(head?.size, Int64(body.count))
            }
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }
}
