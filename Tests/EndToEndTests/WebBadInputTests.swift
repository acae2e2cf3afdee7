import ApplianceBase
import ApplianceProtocol
import Foundation
import MediaLibrary
import TestSupport
import XCTest

/// Bad HTTP requests to the dashboard: each gets a clear 4xx (a JSON error on the API and media), changes
/// nothing, never serves a file it was not asked for by id, and the daemon keeps serving.
final class WebBadInputTests: XCTestCase {
    /// The daemon still answers and can still record, after whatever a test sent it.
    private func assertStillServing(_ web: WebDaemon, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertTrue(web.daemon.isRunning, "the daemon is running", file: file, line: line)
        let status = try web.request("/api/status", file: file, line: line)
        XCTAssertEqual(status.status, 200, file: file, line: line)
        XCTAssertEqual(status.json?["state"] as? String, "idle", file: file, line: line)
        let start = try web.post("/api/commands/record.start", file: file, line: line)
        XCTAssertEqual(start.status, 200, start.text, file: file, line: line)
        try web.daemon.waitUntilRecorded(0.5)
        let stop = try web.post("/api/commands/record.stop", file: file, line: line)
        XCTAssertEqual(stop.status, 200, stop.text, file: file, line: line)
        XCTAssertTrue(
            FileManager.default.fileExists(atPath: stop.json?["path"] as? String ?? "/nonexistent"), file: file,
            line: line)
    }

    /// A 4xx with `{"error": {"code", "message"}}`.
    private func assertJSONError(
        _ r: CurlResponse, _ status: Int, _ code: String, _ what: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(r.status, status, "\(what): \(r.text)", file: file, line: line)
        XCTAssertTrue(
            r.header("Content-Type")?.hasPrefix("application/json") == true,
            "\(what): \(r.header("Content-Type") ?? "no Content-Type")",
            file: file, line: line)
        XCTAssertEqual(r.errorCode, code, "\(what): \(r.text)", file: file, line: line)
        XCTAssertFalse(
            ((r.json?["error"] as? [String: Any])?["message"] as? String ?? "").isEmpty, what, file: file, line: line)
    }

    func testUnknownAndGarbageIds() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        let clip = try web.recordClip(seconds: 1)
        let missing = UUID().uuidString.lowercased()
        for path in [
            "/media/\(missing)/video", "/media/\(missing)/thumbnail", "/media/snapshots/\(missing)",
            "/api/recordings/\(missing)",
        ] {
            assertJSONError(try web.request(path), 404, "not_found", path)
        }
        for path in [
            "/media/not-an-id!/video", "/media/\(clip.id)x/video", "/media/\(clip.id.prefix(8))/video",
            "/media/snapshots/zzz",
            "/media/\(String(repeating: "a", count: 300))/video",
        ] {
            assertJSONError(try web.request(path), 404, "not_found", path)
        }
        // The API names a malformed id a bad request, as the socket does.
        assertJSONError(try web.request("/api/recordings/garbage!!"), 400, "bad_request", "/api/recordings/garbage!!")
        for (method, path) in [
            ("POST", "/api/recordings/\(missing)/lock"), ("POST", "/api/recordings/\(missing)/share"),
            ("DELETE", "/api/recordings/\(missing)"), ("DELETE", "/api/shares/\(missing)"),
        ] {
            assertJSONError(
                try web.request(path, method: method, body: method == "POST" ? Data("{}".utf8) : nil), 404, "not_found",
                "\(method) \(path)")
        }
        XCTAssertEqual(try web.request("/no/such/route").status, 404)
        try assertStillServing(web)
    }

    func testTraversalNeverServesAFile() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        _ = try web.recordClip(seconds: 1)
        let database = try Data(contentsOf: URL(fileURLWithPath: web.daemon.dataDir + "/appliance.sqlite")).prefix(16)
        let passwd = try Data(contentsOf: URL(fileURLWithPath: "/etc/passwd"))
        let config = try Data(contentsOf: URL(fileURLWithPath: web.daemon.configPath))
        let attempts = [
            "/media/..%2F..%2Fetc%2Fpasswd/video", "/media/%2e%2e/video",
            "/media/%2e%2e%2f%2e%2e%2fetc%2fpasswd/thumbnail",
            "/media/snapshots/..%2Fappliance.sqlite", "/media/snapshots/..%2F..%2Fappliance.toml",
            "/media/snapshots/%2e%2e",
            "/s/..%2F..%2Fetc/video", "/s/%2e%2e%2f%2e%2e%2fetc%2fpasswd/video", "/s/..%2Fappliance.sqlite",
            "/media/../../etc/passwd", "/media/../../../../etc/passwd/video", "/media/snapshots/../appliance.sqlite",
            "/media/snapshots/../../appliance.toml", "/s/../../etc/passwd", "/assets/../../../etc/passwd",
            "/assets/..%2F..%2Fetc%2Fpasswd",
            "/media//etc/passwd/video", "/media/snapshots//etc/passwd",
        ]
        for path in attempts {
            for auth in [true, false] {
                let r = try web.request(path, auth: auth, pathAsIs: true)
                XCTAssertTrue(
                    (400..<500).contains(r.status) || (!auth && r.status == 303), "\(path) (auth \(auth)): \(r.status)")
                XCTAssertNil(r.body.range(of: Data("root:".utf8)), "\(path): /etc/passwd leaked")
                XCTAssertNotEqual(r.body, passwd, path)
                XCTAssertNil(r.body.range(of: database), "\(path): the database leaked")
                XCTAssertNil(r.body.range(of: Data("data_dir".utf8)), "\(path): the config leaked")
                XCTAssertNotEqual(r.body, config, path)
                XCTAssertNotEqual(r.header("Content-Type"), "video/mp4", path)
                XCTAssertNotEqual(r.header("Content-Type"), "image/jpeg", path)
            }
        }
        try assertStillServing(web)
    }

    func testBadBodiesAreRefusedAndChangeNothing() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        let clip = try web.recordClip(seconds: 1)
        let title = try web.daemon.info(clip.id).recording.title

        // Over 64 KiB: 413, and record.start did not run.
        let big = try web.request(
            "/api/commands/record.start", method: "POST",
            body: Data("{\"title\": \"\(String(repeating: "a", count: 70_000))\"}".utf8))
        assertJSONError(big, 413, "too_large", "70 kB body")
        XCTAssertEqual(web.state, "idle", "not recording after a refused body")
        let bigRename = try web.request(
            "/api/recordings/\(clip.id)/rename", method: "POST",
            body: Data(repeating: UInt8(ascii: " "), count: 65 * 1024 + 1))
        assertJSONError(bigRename, 413, "too_large", "65 KiB + 1 of spaces")

        let bodies: [(String, String, Data, String)] = [
            ("malformed JSON", "record.start", Data(#"{"title": "#.utf8), "bad_request"),
            (
                "nested 100 levels", "record.start",
                Data((String(repeating: #"{"a":"#, count: 100) + "1" + String(repeating: "}", count: 100)).utf8),
                "bad_request"
            ),
            (
                "arrays nested 100 levels", "record.start",
                Data((String(repeating: "[", count: 100) + String(repeating: "]", count: 100)).utf8), "bad_request"
            ),
            ("whitespace alone (not JSON)", "record.start", Data(" \n".utf8), "bad_request"),
            ("an array body", "record.start", Data("[1, 2, 3]".utf8), "bad_request"),
            ("a string body", "record.start", Data(#""go""#.utf8), "bad_request"),
            ("invalid UTF-8", "record.start", Data([0x7b, 0xff, 0xfe, 0x7d]), "bad_request"),
            ("an unknown argument", "record.start", Data(#"{"titel": "x"}"#.utf8), "bad_request"),
            ("a title of the wrong type", "record.start", Data(#"{"title": 5}"#.utf8), "bad_request"),
            ("share hours below the minimum", "share", Data(#"{"id": "\#(clip.id)", "hours": 0}"#.utf8), "bad_request"),
            ("share without an id", "share", Data("{}".utf8), "bad_request"),
        ]
        for (what, command, body, code) in bodies {
            assertJSONError(try web.request("/api/commands/\(command)", method: "POST", body: body), 400, code, what)
            XCTAssertEqual(web.state, "idle", "\(what): not recording")
        }
        assertJSONError(try web.post("/api/commands/explode"), 404, "unknown_command", "unknown command")
        assertJSONError(try web.post("/api/commands/%2e%2e"), 404, "unknown_command", "a dot-dot command")
        for body in [#"{"title": 5}"#, "{}", #"{"title": null}"#, #"{"title": ["x"]}"#] {
            assertJSONError(
                try web.post("/api/recordings/\(clip.id)/rename", body), 400, "bad_request", "rename \(body)")
        }
        assertJSONError(
            try web.post("/api/recordings/\(clip.id)/rename", #"{"title": "x", "colour": "red"}"#), 400, "bad_request",
            "rename with an unknown argument")
        XCTAssertEqual(try web.daemon.info(clip.id).recording.title, title, "the title did not change")
        XCTAssertEqual((try web.request("/api/shares").json?["items"] as? [Any])?.count, 0, "no share link was made")

        for query in [
            "page=abc", "per_page=abc", "page=0", "page=-1", "per_page=100000", "page=1.5",
            "page=99999999999999999999999",
        ] {
            assertJSONError(try web.request("/api/recordings?\(query)"), 400, "bad_request", query)
        }
        try assertStillServing(web)
    }

    /// Requests that are not well-formed HTTP, sent over a raw connection: 4xx, never a crash.
    func testMalformedHTTPIsRefused() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        let auth = "Host: 127.0.0.1\r\nAuthorization: Bearer \(WebDaemon.password)\r\nConnection: close\r\n"
        func statusLine(_ request: String) throws -> String {
            let reply = try Curl.raw(web.url, request)
            return String(decoding: reply.prefix { $0 != 0x0D }, as: UTF8.self)
        }
        let cases: [(String, String, String)] = [
            ("not HTTP", "GARBAGE\r\n\r\n", "HTTP/1.1 400"),
            ("an unknown HTTP version", "GET /api/status HTTP/9.9\r\n\(auth)\r\n", "HTTP/1.1 400"),
            (
                "two Content-Lengths",
                "POST /api/commands/record.start HTTP/1.1\r\n\(auth)Content-Length: 2\r\nContent-Length: 7\r\n\r\n{}",
                "HTTP/1.1 400"
            ),
            (
                "a 200 kB header",
                "GET /api/status HTTP/1.1\r\n\(auth)X-Big: \(String(repeating: "a", count: 200_000))\r\n\r\n",
                "HTTP/1.1 4"
            ),
        ]
        for (what, request, expected) in cases {
            let line = try statusLine(request)
            XCTAssertTrue(line.hasPrefix(expected), "\(what): \(line)")
            XCTAssertTrue(web.daemon.isRunning, what)
            XCTAssertEqual(web.state, "idle", "\(what): not recording")
        }
        // A chunked body with a bad chunk size is a malformed request, not one too large.
        let chunked = try statusLine(
            """
            POST /api/commands/record.start HTTP/1.1\r\n\(auth)Transfer-Encoding: \
            chunked\r\n\r\nZZZ\r\nabc\r\n0\r\n\r\n
            """
        )
        XCTAssertTrue(chunked.hasPrefix("HTTP/1.1 400"), "bad chunk size: \(chunked)")
        XCTAssertEqual(web.state, "idle")
        // Well-formed chunked JSON is fine (declared JSON: an undeclared body is refused, 415).
        let good = try statusLine(
            """
            POST /api/commands/record.start HTTP/1.1\r\n\(auth)Content-Type: \
            application/json\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n
            """
        )
        XCTAssertTrue(good.hasPrefix("HTTP/1.1 200"), good)
        XCTAssertEqual(web.state, "recording")
        XCTAssertEqual(try web.post("/api/commands/record.stop").status, 200)

        let form = "Content-Type: application/x-www-form-urlencoded"
        let bigLogin = try web.request(
            "/login", method: "POST", headers: [form], auth: false,
            body: Data(("password=" + String(repeating: "a", count: 70_000)).utf8))
        XCTAssertEqual(bigLogin.status, 413)
        XCTAssertNil(bigLogin.header("Set-Cookie"))
        try assertStillServing(web)
    }

    /// Markup in a title or in `next` is shown as text on every page, never run.
    func testMarkupInTitlesAndNextIsEscaped() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        let markup = "<img src=x onerror=alert(1)>\"'&"
        let clip = try web.recordClip(seconds: 1)
        let rename = try web.post(
            "/api/recordings/\(clip.id)/rename", "{\"title\": \"<img src=x onerror=alert(1)>\\\"'&\"}")
        XCTAssertEqual(rename.status, 200, rename.text)
        XCTAssertEqual(rename.json?["title"] as? String, markup)
        let token = try XCTUnwrap(
            try web.post("/api/commands/share", #"{"id": "\#(clip.id)"}"#).json?["token"] as? String)
        for (path, auth) in [
            ("/recordings", true), ("/recordings/\(clip.id)", true), ("/settings", true), ("/s/\(token)", false),
        ] {
            let page = try web.request(path, auth: auth)
            XCTAssertEqual(page.status, 200, path)
            XCTAssertFalse(page.text.contains("<img src=x"), "\(path) shows the title as markup")
            XCTAssertTrue(page.text.contains("&lt;img src=x onerror=alert(1)&gt;"), "\(path) shows the title as text")
        }
        let login = try web.request("/login?next=%2F%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E", auth: false)
        XCTAssertEqual(login.status, 200)
        XCTAssertFalse(login.text.contains("<script>alert(1)"), login.text)
        let download = try web.request("/media/\(clip.id)/video?download=1", headers: ["Range: bytes=0-1"])
        let disposition = try XCTUnwrap(download.header("Content-Disposition"))
        XCTAssertFalse(disposition.dropFirst("attachment; filename=\"".count).dropLast().contains("\""), disposition)
        XCTAssertFalse(disposition.contains("<"), disposition)
        try assertStillServing(web)
    }

    func testWrongCSRFTokenIsForbidden() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        let clip = try web.recordClip(seconds: 1)
        let login = try web.request(
            "/login", method: "POST", headers: ["Content-Type: application/x-www-form-urlencoded"], auth: false,
            body: Data("password=\(WebDaemon.password)".utf8))
        XCTAssertEqual(login.status, 303)
        let cookie = "Cookie: " + String(try XCTUnwrap(login.header("Set-Cookie")).prefix { $0 != ";" })
        let csrf = try XCTUnwrap(
            try web.request("/api/session", headers: [cookie], auth: false).json?["csrf"] as? String)

        for token in [
            "", "wrong", String(csrf.dropLast()), csrf + "x",
            csrf.uppercased() == csrf ? csrf.lowercased() : csrf.uppercased(),
            String(repeating: "a", count: 5000),
        ] {
            let headers = token.isEmpty ? [cookie, "X-CSRF-Token;"] : [cookie, "X-CSRF-Token: \(token)"]
            assertJSONError(
                try web.post("/api/commands/record.start", headers: headers, auth: false), 403, "forbidden",
                "CSRF \(token.prefix(20))")
            assertJSONError(
                try web.request("/api/recordings/\(clip.id)", method: "DELETE", headers: headers, auth: false), 403,
                "forbidden",
                "DELETE with CSRF \(token.prefix(20))")
        }
        // A made-up session cookie reads nothing.
        XCTAssertEqual(
            try web.request("/api/status", headers: ["Cookie: appliance_session=\(csrf)"], auth: false).status, 401)
        XCTAssertEqual(web.state, "idle")
        XCTAssertTrue(FileManager.default.fileExists(atPath: clip.path))
        XCTAssertEqual(
            try web.post("/api/commands/record.start", headers: [cookie, "X-CSRF-Token: \(csrf)"], auth: false).status,
            200)
        XCTAssertEqual(
            try web.post("/api/commands/record.stop", headers: [cookie, "X-CSRF-Token: \(csrf)"], auth: false).status,
            200)
        try assertStillServing(web)
    }

    func testExpiredRevokedAndMadeUpShareLinksAre404() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        let clip = try web.recordClip(seconds: 1)
        let revoked = try XCTUnwrap(
            try web.post("/api/commands/share", #"{"id": "\#(clip.id)"}"#).json?["token"] as? String)
        XCTAssertEqual(try web.request("/api/shares/\(revoked)", method: "DELETE").status, 200)
        var dead = [
            revoked, String(revoked.dropLast()), revoked + "A", "A", String(repeating: "A", count: 43),
            String(repeating: "b", count: 500),
            "%00", "..", "not%20a%20token",
        ]
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") {
            let expired = try XCTUnwrap(
                try web.post("/api/commands/share", #"{"id": "\#(clip.id)"}"#).json?["token"] as? String)
            let past = Int64((Date().timeIntervalSince1970 - 1) * 1000)
            let update = try ProcessOutcome.run(
                "/usr/bin/sqlite3",
                [
                    "-cmd", ".timeout 5000", web.daemon.dataDir + "/appliance.sqlite",
                    "UPDATE shares SET expires_at = \(past) WHERE token_hash = '\(Library.shareHash(token: expired))'",
                ])
            XCTAssertEqual(update.status, 0, update.stderr)
            dead.append(expired)
        }
        for token in dead {
            for path in ["/s/\(token)", "/s/\(token)/video", "/s/\(token)/thumbnail"] {
                let r = try web.request(path, headers: ["Range: bytes=0-1"], auth: false, pathAsIs: true)
                XCTAssertTrue(
                    r.status == 404 || (token == ".." && (400..<500).contains(r.status)), "\(path): \(r.status)")
                XCTAssertNotEqual(r.header("Content-Type"), "video/mp4", path)
            }
        }
        let live = try XCTUnwrap(
            try web.post("/api/commands/share", #"{"id": "\#(clip.id)"}"#).json?["token"] as? String)
        XCTAssertEqual(
            try web.request("/s/\(live)/video", headers: ["Range: bytes=0-1"], auth: false).status, 206,
            "a live link still works")
        try assertStillServing(web)
    }
}
