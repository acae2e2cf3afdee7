import ApplianceBase
import ApplianceProtocol
import Foundation
import MediaLibrary
import TestSupport
import XCTest

/// A running daemon whose dashboard has a password (`[web] token_file`), reached with curl.
final class WebDaemon {
    static let password = "correct-horse-battery-staple"
    let daemon: DaemonProcess
    let url: String
    let tokenFile: String

    /// `web`: more `[web]` lines (`tls = "on"`, a certificate).
    init(publicRead: Bool = false, web: String = "") throws {
        tokenFile =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "appliance-web-token-\(UUID().uuidString.prefix(8))"
            ).path
        try (Self.password + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile)
        daemon = try DaemonProcess(
            extra: """
                [web]
                listen = "127.0.0.1:0"
                token_file = "\(tokenFile)"
                \(publicRead ? "public_read = true" : "")
                \(web)
                """)
        try daemon.start()
        url = try daemon.webURL()
    }

    func stop() {
        daemon.stop()
        try? FileManager.default.removeItem(atPath: tokenFile)
    }

    /// A request with the bearer token unless `auth` is false.
    func request(
        _ path: String, method: String = "GET", headers: [String] = [], auth: Bool = true, body: Data? = nil,
        pathAsIs: Bool = false, file: StaticString = #filePath, line: UInt = #line
    ) throws -> CurlResponse {
        try Curl.request(
            url + path, method: method, headers: headers, bearer: auth ? Self.password : nil, body: body,
            pathAsIs: pathAsIs, file: file, line: line)
    }

    func post(
        _ path: String, _ json: String = "{}", headers: [String] = [], auth: Bool = true,
        file: StaticString = #filePath, line: UInt = #line
    ) throws -> CurlResponse {
        try request(path, method: "POST", headers: headers, auth: auth, body: Data(json.utf8), file: file, line: line)
    }

    /// Records a clip of about `seconds` over the socket; its id, file and thumbnail (waited for).
    func recordClip(seconds: Double = 3) throws -> (id: String, path: String, thumbnail: String) {
        _ = try daemon.recordStart()
        try daemon.waitUntilRecorded(seconds)
        let stop = try daemon.recordStop()
        let id = stop.id
        let path = stop.path
        let thumbnail = try XCTUnwrap(stop.thumbnail)
        XCTAssertTrue(
            daemon.waitFor(10) { FileManager.default.fileExists(atPath: thumbnail) }, "thumbnail \(thumbnail) written")
        return (id, path, thumbnail)
    }

    var state: String? { (try? daemon.status())?.state.rawValue }
}

/// The dashboard over real HTTP, where a real socket and daemon matter: a recorded clip served whole and a raw HEAD,
/// share links, listen addresses and Host names, status and metrics, the event stream, and the API on real clips.
/// The Range and caching rules, the login form, cookie, CSRF and public_read are tested in-process
/// (ApplianceWebTests: WebMediaRouteTests, WebAccessRouteTests).
final class WebHTTPTests: XCTestCase {
    /// One daemon and one clip for the read-only media tests (each test reads, none changes anything).
    private struct MediaFixture {
        let web: WebDaemon
        let id: String
        let video: Data
        var length: Int { video.count }
    }

    nonisolated(unsafe) private static var shared: MediaFixture?

    override class func tearDown() {
        shared?.web.stop()
        shared = nil
        super.tearDown()
    }

    private func media() throws -> MediaFixture {
        if let fixture = Self.shared { return fixture }
        let web = try WebDaemon()
        let clip = try web.recordClip()
        let fixture = MediaFixture(web: web, id: clip.id, video: try Data(contentsOf: URL(fileURLWithPath: clip.path)))
        XCTAssertGreaterThan(fixture.length, 10_000, "a 3 s clip")
        Self.shared = fixture
        return fixture
    }

    private func video(_ f: MediaFixture, _ headers: [String] = [], query: String = "", method: String = "GET") throws
        -> CurlResponse
    {
        try f.web.request("/media/\(f.id)/video\(query)", method: method, headers: headers)
    }

    // MARK: A recorded clip

    func testNoRangeIsTheWholeFileWithAcceptRanges() throws {
        let f = try media()
        let r = try video(f)
        XCTAssertEqual(r.status, 200)
        XCTAssertEqual(r.header("Accept-Ranges"), "bytes")
        XCTAssertEqual(r.header("Content-Length"), String(f.length))
        XCTAssertEqual(r.header("Content-Type"), "video/mp4")
        XCTAssertNil(r.header("Content-Range"))
        XCTAssertNotNil(r.header("ETag"))
        XCTAssertNotNil(r.header("Last-Modified"))
        XCTAssertNil(r.header("Content-Disposition"), "inline unless ?download=1")
        XCTAssertEqual(r.body, f.video)
    }

    func testHeadHasTheHeadersAndNoBody() throws {
        let f = try media()
        let head = try video(f, method: "HEAD")
        XCTAssertEqual(head.status, 200)
        XCTAssertEqual(head.header("Content-Length"), String(f.length))
        XCTAssertEqual(head.header("Accept-Ranges"), "bytes")
        XCTAssertEqual(head.header("Content-Type"), "video/mp4")
        XCTAssertNotNil(head.header("ETag"))
        let ranged = try video(f, ["Range: bytes=-10"], method: "HEAD")
        XCTAssertEqual(ranged.status, 206)
        XCTAssertEqual(ranged.header("Content-Range"), "bytes \(f.length - 10)-\(f.length - 1)/\(f.length)")
        XCTAssertEqual(ranged.header("Content-Length"), "10")

        // curl stops reading at a HEAD's headers; a raw connection shows that nothing follows them.
        let raw = try Curl.raw(
            f.web.url,
            "HEAD /media/\(f.id)/video HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Authorization: Bearer \(WebDaemon.password)\r\nConnection: close\r\n\r\n")
        let end = try XCTUnwrap(raw.range(of: Data("\r\n\r\n".utf8)), String(decoding: raw.prefix(500), as: UTF8.self))
        XCTAssertTrue(String(decoding: raw[..<end.lowerBound], as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        XCTAssertEqual(
            raw.count, end.upperBound,
            "no body after a HEAD response's headers (\(raw.count - end.upperBound) extra bytes)")
    }

    // MARK: Who may do what

    func testShareLinkServesOnlyItsClipUntilRevokedOrExpired() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        let clip = try web.recordClip()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: clip.path))

        let made = try web.post("/api/commands/share", #"{"id": "\#(clip.id)"}"#)
        XCTAssertEqual(made.status, 200, made.text)
        let token = try XCTUnwrap(made.json?["token"] as? String)
        XCTAssertEqual(made.json?["url"] as? String, "/s/\(token)")
        XCTAssertGreaterThanOrEqual(token.count, 43, "256 bits")
        let id = try XCTUnwrap(made.json?["id"] as? String)
        XCTAssertEqual(id, Library.shareID(token: token))
        let listed = try web.request("/api/shares")
        let items = listed.json?["items"] as? [[String: Any]] ?? []
        XCTAssertEqual(items.compactMap { $0["id"] as? String }, [id], "listed by id")
        XCTAssertFalse(listed.text.contains(token), "the token is shown once, when made: the device keeps its hash")
        XCTAssertFalse(
            try Data(contentsOf: URL(fileURLWithPath: web.daemon.dataDir + "/appliance.sqlite")).range(
                of: Data(token.utf8)) != nil,
            "nor is it in the database")

        // No auth at all: the page, the video (also by Range), the thumbnail.
        let page = try web.request("/s/\(token)", auth: false)
        XCTAssertEqual(page.status, 200)
        XCTAssertTrue(page.text.contains("/s/\(token)/video"), "the page plays the shared video")
        let whole = try web.request("/s/\(token)/video", auth: false)
        XCTAssertEqual(whole.status, 200)
        XCTAssertEqual(whole.header("Accept-Ranges"), "bytes")
        XCTAssertEqual(whole.body, bytes)
        let part = try web.request("/s/\(token)/video", headers: ["Range: bytes=100-199"], auth: false)
        XCTAssertEqual(part.status, 206)
        XCTAssertEqual(part.header("Content-Range"), "bytes 100-199/\(bytes.count)")
        XCTAssertEqual(part.body, bytes.subdata(in: 100..<200))
        let suffix = try web.request("/s/\(token)/video", headers: ["Range: bytes=-10"], auth: false)
        XCTAssertEqual(suffix.body, bytes.suffix(10))
        let thumbnail = try web.request("/s/\(token)/thumbnail", auth: false)
        XCTAssertEqual(thumbnail.status, 200)
        XCTAssertEqual(thumbnail.body, try Data(contentsOf: URL(fileURLWithPath: clip.thumbnail)))

        // The link opens nothing else for the same client.
        for path in ["/api/status", "/media/\(clip.id)/video", "/api/recordings", "/api/shares"] {
            XCTAssertEqual(
                try web.request(path, headers: ["Referer: \(web.url)/s/\(token)"], auth: false).status, 401, path)
        }
        XCTAssertEqual(try web.request("/", auth: false).status, 303)

        // Revoked (by the id a list shows): 404, and a second revoke (by the token) is 404 too.
        let revoke = try web.request("/api/shares/\(id)", method: "DELETE")
        XCTAssertEqual(revoke.status, 200, revoke.text)
        XCTAssertEqual(revoke.json?["revoked"] as? Bool, true)
        for path in ["/s/\(token)", "/s/\(token)/video", "/s/\(token)/thumbnail"] {
            let r = try web.request(path, auth: false)
            XCTAssertEqual(r.status, 404, path)
            XCTAssertLessThan(r.body.count, 10_000, "\(path): no video bytes")
        }
        XCTAssertEqual(try web.request("/api/shares/\(token)", method: "DELETE").status, 404)

        // Expired: the link's expiry moved into the past in the database (the shortest link lasts 36 s).
        let second = try XCTUnwrap(
            try web.post("/api/commands/share", #"{"id": "\#(clip.id)", "hours": 0.01}"#).json?["token"] as? String)
        XCTAssertEqual(try web.request("/s/\(second)/video", headers: ["Range: bytes=0-1"], auth: false).status, 206)
        // Without the sqlite3 tool, expiry is covered in-process only (MediaLibraryTests.ShareExpiryTests).
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") else { return }
        let past = Int64((Date().timeIntervalSince1970 - 60) * 1000)
        let update = try ProcessOutcome.run(
            "/usr/bin/sqlite3",
            [
                "-cmd", ".timeout 5000", web.daemon.dataDir + "/appliance.sqlite",
                "UPDATE shares SET expires_at = \(past) WHERE token_hash = '\(Library.shareHash(token: second))'",
            ])
        XCTAssertEqual(update.status, 0, update.stderr)
        for path in ["/s/\(second)", "/s/\(second)/video"] {
            XCTAssertEqual(try web.request(path, auth: false).status, 404, "expired: \(path)")
        }
        XCTAssertEqual(
            (try web.request("/api/shares").json?["items"] as? [Any])?.count, 0, "an expired link is not listed")
    }

    /// With no account and no token_file any listen address may be used, but only this machine is served (no
    /// login): another host is refused even when it names localhost; the first account, made on the device with
    /// `ctl user add`, then opens it to logins from anywhere.
    func testWithoutAccountsOnlyThisMachineIsServedOnAnyAddress() throws {
        let net = try VethNetwork()
        defer { net.remove() }
        let daemon = try DaemonProcess(extra: "[web]\nlisten = \"0.0.0.0:0\"")
        try daemon.start()
        defer { daemon.stop() }
        let port = try XCTUnwrap(URL(string: try daemon.webURL())?.port)
        let certificate = daemon.dataDir + "/tls/device.crt"
        XCTAssertEqual(
            try Curl.request("https://127.0.0.1:\(port)/api/status", caFile: certificate).status, 200,
            "this machine, no login")
        let fromAnotherHost = { (headers: [String]) throws -> String in
            try ProcessOutcome.run(
                "/usr/sbin/ip",
                ["netns", "exec", net.namespace, Curl.path, "-sk", "-o", "/dev/null", "-w", "%{http_code}"]
                    + headers.flatMap { ["-H", $0] } + ["https://\(net.deviceAddress):\(port)/api/status"], timeout: 30
            ).stdout
        }
        XCTAssertEqual(try fromAnotherHost([]), "403")
        XCTAssertEqual(
            try fromAnotherHost(["Host: localhost"]), "403", "naming localhost does not make another host this machine")
        XCTAssertEqual(
            try daemon.ctl(["user", "add", "anna", "--role", "admin"], input: "anna-password-1\n").status, 0)
        XCTAssertEqual(
            try Curl.request("https://127.0.0.1:\(port)/api/status", caFile: certificate).status, 401,
            "a login from now on")
        let basic = "Authorization: Basic " + Data("anna:anna-password-1".utf8).base64EncodedString()
        XCTAssertEqual(try fromAnotherHost([basic]), "200")
    }

    func testABadTokenFileStopsTheStartWithOneLine() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appliance-web-start-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("appliance.toml").path
        // A password too short, a token_file that is not there, or one that others may read, stops the start with one
        // line naming it.
        let short = directory.appendingPathComponent("short-token").path
        try "short\n".write(toFile: short, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: short)
        let readable = directory.appendingPathComponent("readable-token").path
        try "long enough but readable\n".write(toFile: readable, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: readable)
        for tokenFile in [short, directory.path + "/missing-token", readable] {
            try DaemonProcess.config(
                dataDir: directory.path + "/data",
                extra: "[web]\nlisten = \"127.0.0.1:0\"\ntoken_file = \"\(tokenFile)\""
            )
            .write(toFile: config, atomically: true, encoding: .utf8)
            let refused = try ProcessOutcome.run(
                DaemonProcess.binary, ["run", "--config", config, "--socket", directory.path + "/ctl.sock"], timeout: 30
            )
            XCTAssertNotEqual(refused.status, 0, refused.stderr)
            let last = String(refused.stderr.split(separator: "\n").last ?? "")
            XCTAssertTrue(last.hasPrefix("appliance: "), refused.stderr)
            XCTAssertTrue(last.contains("token_file") && last.contains(tokenFile), last)
            XCTAssertFalse(
                refused.stderr.contains("short\n") || refused.stderr.contains(": short"),
                "the password is never printed")
        }
    }

    /// With a password, any address may be listened on; the token is still needed. There the default (`tls = "auto"`)
    /// is HTTPS, with the device's own certificate for every address it has.
    func testNonLoopbackListenWithTokenFileServes() throws {
        let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appliance-web-token-\(UUID().uuidString.prefix(8))"
        ).path
        try (WebDaemon.password + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: tokenFile)
        defer { try? FileManager.default.removeItem(atPath: tokenFile) }
        let daemon = try DaemonProcess(extra: "[web]\nlisten = \"0.0.0.0:0\"\ntoken_file = \"\(tokenFile)\"")
        try daemon.start()
        defer { daemon.stop() }
        let url = try daemon.webURL()
        XCTAssertTrue(url.hasPrefix("https://0.0.0.0:"), url)
        let port = try XCTUnwrap(URL(string: url)?.port)
        let local = "https://127.0.0.1:\(port)"
        let certificate = daemon.dataDir + "/tls/device.crt"
        XCTAssertEqual(
            try Curl.request(local + "/api/status", bearer: WebDaemon.password, caFile: certificate).status, 200)
        XCTAssertEqual(
            try Curl.request("https://localhost:\(port)/api/status", bearer: WebDaemon.password, caFile: certificate)
                .status, 200)
        XCTAssertEqual(try Curl.request(local + "/api/status", caFile: certificate).status, 401)
        XCTAssertEqual(
            try Curl.request(
                local + "/api/status", headers: ["Host: evil.example"], bearer: WebDaemon.password,
                caFile: certificate
            ).status, 200, "with a password the Host name does not matter")
        XCTAssertEqual(try Curl.request("http://127.0.0.1:\(port)/api/status", bearer: WebDaemon.password).status, 301)
    }

    /// `listen = "off"`: no web server, no `status.web`, and the daemon records as ever (it once exited at start:
    /// a service that returned at once ended the whole group).
    func testListenOffRunsWithoutTheDashboard() throws {
        let daemon = try DaemonProcess(extra: "[web]\nlisten = \"off\"")
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertNil(try daemon.status().web)
        _ = try daemon.recordStart()
        try daemon.waitUntilRecorded(1.5)
        let stopped = try daemon.recordStop()
        XCTAssertTrue(FileManager.default.fileExists(atPath: stopped.path))
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testStatusShowsServingAndMetricsNeedTheToken() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        let socketWeb = try XCTUnwrap(try web.daemon.status().web)
        XCTAssertEqual(socketWeb.state, .serving)
        XCTAssertEqual(socketWeb.url, web.url)
        XCTAssertTrue(web.url.hasPrefix("http://127.0.0.1:"), web.url)

        let status = try web.request("/api/status")
        XCTAssertEqual(status.status, 200)
        XCTAssertEqual(status.header("Cache-Control"), "no-store")
        XCTAssertEqual((status.json?["web"] as? [String: Any])?["state"] as? String, "serving")
        XCTAssertEqual(status.json?["state"] as? String, "idle")

        let metrics = try web.request("/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertTrue(
            metrics.header("Content-Type")?.hasPrefix("text/plain; version=0.0.4") == true,
            metrics.header("Content-Type") ?? "")
        XCTAssertTrue(metrics.text.contains("# TYPE "), metrics.text)
        let samples = metrics.text.split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
        XCTAssertFalse(samples.isEmpty)
        for sample in samples {
            XCTAssertNotNil(sample.split(separator: " ").last.flatMap { Double($0) }, "a Prometheus sample: \(sample)")
        }
        XCTAssertEqual(try web.request("/metrics", auth: false).status, 401)
    }

    /// Without a token_file every local client is one session, but only under a loopback name: another Host
    /// (DNS rebinding: a page on evil.example resolving to 127.0.0.1) is refused.
    func testWithoutPasswordOnlyLoopbackHostNamesAreServed() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let url = try daemon.webURL()
        let port = try XCTUnwrap(URL(string: url)?.port)
        for host in ["127.0.0.1:\(port)", "localhost:\(port)", "localhost"] {
            XCTAssertEqual(try Curl.request(url + "/api/status", headers: ["Host: \(host)"]).status, 200, host)
        }
        // Still a session: a command needs the CSRF token the pages carry.
        XCTAssertEqual(
            try Curl.request(url + "/api/commands/record.start", method: "POST", body: Data("{}".utf8)).status, 403)
        let csrf = try XCTUnwrap(try Curl.request(url + "/api/session").json?["csrf"] as? String)
        // A rebinding page can read what its own origin serves: the session's CSRF token first, then a command.
        for host in [
            "evil.example:\(port)", "evil.example", "127.0.0.1.evil.example:\(port)", "127.0.0.1.nip.io",
            "localhost.evil.example:\(port)",
        ] {
            for path in ["/api/status", "/api/session", "/"] {
                let r = try Curl.request(url + path, headers: ["Host: \(host)"])
                XCTAssertEqual(r.status, 403, "\(host) \(path)")
                XCTAssertNil(r.json?["csrf"], "\(host) read the CSRF token")
            }
            let start = try Curl.request(
                url + "/api/commands/record.start", method: "POST",
                headers: ["Host: \(host)", "X-CSRF-Token: \(csrf)"],
                body: Data("{}".utf8))
            XCTAssertEqual(start.status, 403, "\(host) POST record.start")
            if try daemon.status().state == .recording {
                XCTFail("\(host) started a recording")
                _ = try daemon.recordStop()
            }
        }
        XCTAssertEqual(
            try Curl.request(
                url + "/api/commands/record.start", method: "POST", headers: ["X-CSRF-Token: \(csrf)"],
                body: Data("{}".utf8)
            ).status, 200)
        XCTAssertEqual(try daemon.status().state, .recording)
        _ = try daemon.recordStop()
    }

    func testEventStreamSendsTheDaemonsEvents() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        let output = web.daemon.directory.appendingPathComponent("events.txt").path
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: Curl.path)
        curl.arguments = [
            "-s", "-N", "--max-time", "60", "-H", "Authorization: Bearer \(WebDaemon.password)", "-D",
            output + ".headers",
            "-o", output, web.url + "/api/events",
        ]
        try curl.run()
        defer {
            if curl.isRunning { kill(curl.processIdentifier, SIGTERM) }
            curl.waitUntilExit()
        }
        func received() -> String { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
        XCTAssertTrue(web.daemon.waitFor(10) { received().contains(": connected") }, received())
        let headers = (try? String(contentsOfFile: output + ".headers", encoding: .utf8)) ?? ""
        XCTAssertTrue(headers.lowercased().contains("content-type: text/event-stream"), headers)

        _ = try web.daemon.recordStart(title: "streamed")
        XCTAssertTrue(web.daemon.waitFor(10) { received().contains("event: recording_started\ndata: {") }, received())
        _ = try web.daemon.recordStop()
        XCTAssertTrue(web.daemon.waitFor(10) { received().contains("event: recording_stopped\ndata: {") }, received())
        let started = received().components(separatedBy: "\n").first {
            $0.hasPrefix("data: ") && $0.contains("recording_started")
        }
        let data = try XCTUnwrap(started.map { Data($0.dropFirst("data: ".count).utf8) })
        let event = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: data) as? [String: Any], String(decoding: data, as: UTF8.self))
        XCTAssertEqual(event["event"] as? String, "recording_started")
        XCTAssertTrue(curl.isRunning, "the stream stays open")
    }

    func testAPIListsActsOnAndDeletesClips() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        let first = try web.recordClip(seconds: 1)
        let second = try web.recordClip(seconds: 1)

        let page = try web.request("/api/recordings?page=1&per_page=1")
        XCTAssertEqual(page.status, 200, page.text)
        XCTAssertEqual(page.json?["total"] as? Int, 2)
        XCTAssertEqual(page.json?["pages"] as? Int, 2)
        let items = try XCTUnwrap(page.json?["items"] as? [[String: Any]])
        XCTAssertEqual(items.map { $0["id"] as? String }, [second.id], "newest first")
        XCTAssertEqual(items.first?["video_url"] as? String, "/media/\(second.id)/video")
        XCTAssertEqual(items.first?["thumbnail_url"] as? String, "/media/\(second.id)/thumbnail")
        let older = try web.request("/api/recordings?page=2&per_page=1")
        XCTAssertEqual((older.json?["items"] as? [[String: Any]])?.map { $0["id"] as? String }, [first.id])

        let info = try web.request("/api/recordings/\(first.id)")
        XCTAssertEqual(info.status, 200)
        XCTAssertEqual(info.json?["id"] as? String, first.id)
        XCTAssertEqual(info.json?["path"] as? String, first.path)

        let rename = try web.post("/api/recordings/\(first.id)/rename", #"{"title": "Über café"}"#)
        XCTAssertEqual(rename.status, 200, rename.text)
        XCTAssertEqual(rename.json?["title"] as? String, "Über café")
        XCTAssertEqual(try web.daemon.info(first.id).recording.title, "Über café")

        XCTAssertEqual(try web.post("/api/recordings/\(first.id)/lock").json?["locked"] as? Bool, true)
        let refused = try web.request("/api/recordings/\(first.id)", method: "DELETE")
        XCTAssertEqual(refused.status, 409, "a locked clip is not deleted: \(refused.text)")
        XCTAssertEqual(refused.errorCode, "conflict")
        XCTAssertTrue(FileManager.default.fileExists(atPath: first.path))
        XCTAssertEqual(try web.post("/api/recordings/\(first.id)/unlock").json?["locked"] as? Bool, false)

        let share = try web.post("/api/recordings/\(first.id)/share", #"{"hours": 1}"#)
        XCTAssertEqual(share.status, 200, share.text)
        XCTAssertEqual(share.json?["recording_id"] as? String, first.id)
        let token = try XCTUnwrap(share.json?["token"] as? String)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let created = try XCTUnwrap((share.json?["created_at"] as? String).flatMap(formatter.date(from:)))
        let expires = try XCTUnwrap((share.json?["expires_at"] as? String).flatMap(formatter.date(from:)))
        XCTAssertEqual(expires.timeIntervalSince(created), 3600, accuracy: 0.01)
        XCTAssertEqual(try web.request("/s/\(token)/video", headers: ["Range: bytes=0-1"], auth: false).status, 206)

        let deleted = try web.request("/api/recordings/\(first.id)", method: "DELETE")
        XCTAssertEqual(deleted.status, 200, deleted.text)
        XCTAssertFalse(FileManager.default.fileExists(atPath: first.path))
        XCTAssertEqual(try web.request("/media/\(first.id)/video").status, 404)
        XCTAssertEqual(try web.request("/api/recordings/\(first.id)").status, 404)
        XCTAssertEqual(try web.request("/api/recordings").json?["total"] as? Int, 1)
        XCTAssertEqual(try web.request("/s/\(token)/video", auth: false).status, 404, "a deleted clip's link is dead")
        XCTAssertEqual(try web.request("/s/\(token)", auth: false).status, 404)
    }
}
