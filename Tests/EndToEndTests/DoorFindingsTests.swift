import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Issue 58's findings, each tried on a real daemon as the attacker did: a viewer's (or a stranger's, with
/// `public_read`) one request that trapped the daemon, and a foreign page's POST with the Basic credentials a
/// browser resends. Each is refused with a 4xx and the daemon keeps its PID and records.
final class DoorFindingsTests: XCTestCase {
    /// `?page=9223372036854775807` made `(page - 1) * perPage` trap (SIGILL) before the bound; `public_read` opened it
    /// to anyone.
    func testAnOverflowingPageIsA400AndTheDaemonStaysUp() throws {
        let web = try WebDaemon(publicRead: true)
        defer { web.stop() }
        let pid = web.daemon.pid
        let huge = "9223372036854775807"
        for path in [
            "/api/recordings?page=\(huge)", "/api/recordings?page=\(huge)&per_page=1000",
            "/api/recordings?per_page=\(huge)",
            "/api/recordings?page=-\(huge)", "/api/recordings?page=0", "/api/recordings?page=\(huge)&grouped=true",
            "/api/recordings?page=\(huge)&search=x", "/api/recordings?page=4611686018427387904&per_page=2",
            "/api/activity?limit=\(huge)",
        ] {
            for auth in [true, false] {
                let answer = try web.request(path, auth: auth)
                XCTAssertEqual(answer.status, 400, "\(path): \(answer.text)")
                let message = (answer.json?["error"] as? [String: Any])?["message"] as? String ?? ""
                XCTAssertTrue(
                    message.contains("page") || message.contains("limit"), "the message names the parameter: \(message)"
                )
            }
        }
        let page = try web.request("/recordings?page=\(huge)", auth: false)
        XCTAssertEqual(page.status, 400, page.text)
        XCTAssertEqual(web.daemon.pid, pid)
        XCTAssertTrue(web.daemon.isRunning)
        let start = try web.post("/api/commands/record.start")
        XCTAssertEqual(start.status, 200, start.text)
        try web.daemon.waitUntilRecorded(0.5)
        let stop = try web.post("/api/commands/record.stop")
        XCTAssertEqual(stop.status, 200, stop.text)
        XCTAssertEqual(web.daemon.pid, pid)
    }

    /// A foreign page's POST with Basic credentials, `text/plain` and its own Origin made an admin: now refused by
    /// where it comes from (Origin, Sec-Fetch-Site) whatever its credentials, and a body that is not declared JSON is
    /// refused too. The same request from the dashboard's own origin, or from curl (no Origin), still works.
    func testAForeignPageCannotChangeAnythingWithResentCredentials() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        let basic = "Authorization: Basic " + Data("appliance:\(WebDaemon.password)".utf8).base64EncodedString()
        let body = Data(#"{"name":"mallory","role":"admin","password":"mallory-password"}"#.utf8)
        for headers in [
            ["Origin: https://evil.example", "Content-Type: text/plain"],
            ["Origin: https://evil.example", "Content-Type: application/json"],
            ["Origin: null", "Content-Type: application/json"],
            ["Sec-Fetch-Site: cross-site", "Content-Type: application/json"],
            ["Sec-Fetch-Site: same-site", "Origin: http://127.0.0.1:1", "Content-Type: application/json"],
        ] {
            let answer = try web.request(
                "/api/commands/user.add", method: "POST", headers: headers + [basic], auth: false, body: body)
            XCTAssertEqual(answer.status, 403, "\(headers): \(answer.text)")
            XCTAssertEqual(answer.errorCode, "forbidden", answer.text)
        }
        let plain = try web.request(
            "/api/commands/user.add", method: "POST", headers: ["Content-Type: text/plain", basic], auth: false,
            body: body)
        XCTAssertEqual(plain.status, 415, plain.text)
        let users = try web.post("/api/commands/users")
        XCTAssertFalse(users.text.contains("mallory"), users.text)
        // The dashboard's own origin passes (as its pages send it), and so does a client that is not a browser.
        let host = URL(string: web.url)!.host! + ":" + String(URL(string: web.url)!.port!)
        let own = try web.request(
            "/api/commands/version", method: "POST", headers: ["Origin: \(web.url)", "Sec-Fetch-Site: same-origin"],
            body: Data("{}".utf8))
        XCTAssertEqual(own.status, 200, "\(host): \(own.text)")
        XCTAssertEqual(try web.post("/api/commands/version").status, 200)
    }

    /// A viewer may take snapshots, but no longer without limit (they were never deleted: the disk filled and
    /// retention deleted clips): 20 a minute, the rest refused with a reason, and the newest 100 files kept.
    func testAViewersSnapshotsAreBounded() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        XCTAssertEqual(
            try web.daemon.ctl(["user", "add", "vic", "--role", "viewer"], input: "vics-password-1\n").status, 0)
        let viewer = "Authorization: Basic " + Data("vic:vics-password-1".utf8).base64EncodedString()
        var taken = 0
        var refused: [String] = []
        for _ in 0..<25 {
            let answer = try web.request(
                "/api/commands/snapshot", method: "POST", headers: [viewer], auth: false, body: Data("{}".utf8))
            if answer.status == 200 { taken += 1 } else { refused.append("\(answer.status) \(answer.text)") }
        }
        XCTAssertEqual(taken, 20)
        XCTAssertEqual(refused.count, 5)
        XCTAssertTrue(refused.allSatisfy { $0.hasPrefix("429") && $0.contains("20 snapshots a minute") }, "\(refused)")
        let files = try FileManager.default.contentsOfDirectory(atPath: web.daemon.dataDir + "/snapshots")
        XCTAssertEqual(files.filter { $0.hasSuffix(".jpg") }.count, 20)
        XCTAssertTrue(web.daemon.isRunning)
    }
}
