import ApplianceProtocol
import Foundation
import HummingbirdTesting
import XCTest

/// Who may do what, and what a request turns into, in-process: every typed command the routes hand the core is
/// seen, so a refused request is proven to have reached nothing. (End-to-end tests keep the real socket's share:
/// share links, public_read and Host checks through curl, the browser.)
final class WebAccessRouteTests: XCTestCase {
    private static let started = RecordingStarted(
        id: "0b7c2a4e-1111-4222-8333-944455556666", title: "from the browser",
        partialPath: "/data/partial/0b7c2a4e.mp4", createdAt: Date(timeIntervalSince1970: 1_700_000_000))

    private static func answer(_ command: Command) throws(ApplianceError) -> CommandResult {
        switch command {
        case .recordStart(let title, _):
            return .recordingStarted(
                RecordingStarted(
                    id: started.id, title: title ?? "untitled",
                    partialPath: started.partialPath, createdAt: started.createdAt))
        case .version: return .version(VersionInfo(version: "9.9.9", gstreamer: "1.22.0"))
        case .delete(let id, _): throw ApplianceError(.notFound, "no recording matches '\(id)'")
        default: throw ApplianceError(.unavailable, "not in this test: \(command.name)")
        }
    }

    func testWithoutAuthOnlyLoginAssetsAndShareLinksAreOpen() async throws {
        let web = try WebHarness(answer: Self.answer)
        let (clip, _, _) = try await web.addRecording()
        let snapshot = try web.addSnapshot()
        try await web.test { client in
            for path in [
                "/api/status", "/api/session", "/api/recordings", "/api/recordings/\(clip.id)", "/api/shares",
                "/api/config",
                "/api/events", "/media/\(clip.id)/video", "/media/\(clip.id)/thumbnail",
                "/media/snapshots/\(snapshot.id)", "/metrics",
            ] {
                let r = try await client.request(path, auth: false)
                XCTAssertEqual(r.status, .unauthorized, path)
                XCTAssertEqual(r.errorCode, "unauthorized", path)
                XCTAssertEqual(r.header("WWW-Authenticate"), "Bearer realm=\"appliance\"", path)
            }
            let ranged = try await client.request("/media/\(clip.id)/video", headers: ["Range: bytes=0-1"], auth: false)
            XCTAssertEqual(ranged.status, .unauthorized, "a Range does not get around the login")
            for path in ["/", "/recordings", "/recordings/\(clip.id)", "/settings"] {
                let r = try await client.request(path, auth: false)
                XCTAssertEqual(r.status, .seeOther, path)
                XCTAssertTrue(
                    r.header("Location")?.hasPrefix("/login?next=") == true,
                    "\(path): \(r.header("Location") ?? "no Location")")
            }
            let answer1 = try await client.post("/api/commands/record.start", auth: false)
            XCTAssertEqual(answer1.status, .unauthorized)
            let answer2 = try await client.request("/api/recordings/\(clip.id)", method: .delete, auth: false)
            XCTAssertEqual(answer2.status, .unauthorized)

            let login = try await client.request("/login", auth: false)
            XCTAssertEqual(login.status, .ok)
            XCTAssertTrue(login.header("Content-Type")?.hasPrefix("text/html") == true)
            for asset in ["/assets/app.css", "/assets/app.js"] {
                let answer3 = try await client.request(asset, auth: false)
                XCTAssertEqual(answer3.status, .ok, asset)
            }
            for authorization in [
                "Bearer wrong-password-123", "Basic \(Data("admin:\(WebHarness.password)".utf8).base64EncodedString())",
            ] {
                let r = try await client.request(
                    "/api/version", headers: ["Authorization: \(authorization)"], auth: false)
                XCTAssertEqual(r.status, .unauthorized, authorization)
            }
        }
        XCTAssertEqual(web.sent, [], "no refused request reached the core")
    }

    func testLoginFormSessionCookieAndCSRF() async throws {
        let web = try WebHarness(answer: Self.answer)
        try await web.test { client in
            let form = "Content-Type: application/x-www-form-urlencoded"
            let wrong = try await client.request(
                "/login", method: .post, headers: [form], auth: false,
                body: "password=not-the-password&next=%2Frecordings")
            XCTAssertEqual(wrong.status, .unauthorized)
            XCTAssertNil(wrong.header("Set-Cookie"))

            let right = try await client.request(
                "/login", method: .post, headers: [form], auth: false,
                body: "password=\(WebHarness.password)&next=%2Frecordings")
            XCTAssertEqual(right.status, .seeOther)
            XCTAssertEqual(right.header("Location"), "/recordings")
            let setCookie = try XCTUnwrap(right.header("Set-Cookie"))
            XCTAssertTrue(setCookie.hasPrefix("appliance_session="), setCookie)
            XCTAssertTrue(setCookie.contains("HttpOnly"), setCookie)
            XCTAssertTrue(setCookie.contains("SameSite=Strict"), setCookie)
            let cookie = "Cookie: " + String(setCookie.prefix { $0 != ";" })

            // Another site as `next` is not followed (browsers drop tabs and newlines: "/\t/evil" is "//evil").
            for next in [
                "%2F%2Fevil.example%2F", "https%3A%2F%2Fevil.example%2F", "%2F%5Cevil.example", "%2F%09%2Fevil.example",
                "%2F%0A%2Fevil.example", "%09%2F%2Fevil.example",
            ] {
                let offsite = try await client.request(
                    "/login", method: .post, headers: [form], auth: false,
                    body: "password=\(WebHarness.password)&next=\(next)")
                XCTAssertEqual(offsite.status, .seeOther, next)
                XCTAssertEqual(offsite.header("Location"), "/", "next=\(next)")
            }

            struct SessionInfo: Decodable {
                var access: String
                var csrf: String?
            }
            let session = try await client.request("/api/session", headers: [cookie], auth: false).decode(
                SessionInfo.self)
            XCTAssertEqual(session.access, "session")
            let csrf = try XCTUnwrap(session.csrf)

            let bare = try await client.post("/api/commands/record.start", headers: [cookie], auth: false)
            XCTAssertEqual(bare.status, .forbidden)
            XCTAssertEqual(bare.errorCode, "forbidden")
            let forged = try await client.post(
                "/api/commands/record.start", headers: [cookie, "X-CSRF-Token: \(csrf.dropLast())x"], auth: false)
            XCTAssertEqual(forged.status, .forbidden)
            XCTAssertEqual(web.sent, [], "neither reached the core")

            let start = try await client.post(
                "/api/commands/record.start", #"{"title": "from the browser"}"#,
                headers: [cookie, "X-CSRF-Token: \(csrf)"], auth: false)
            XCTAssertEqual(start.status, .ok, start.text)
            XCTAssertEqual(try start.decode(RecordingStarted.self), Self.started)
            XCTAssertEqual(web.sent, [.recordStart(title: "from the browser")])

            let logout = try await client.post("/logout", "", headers: [cookie, "X-CSRF-Token: \(csrf)"], auth: false)
            XCTAssertEqual(logout.status, .seeOther)
            XCTAssertTrue(
                logout.header("Set-Cookie")?.contains("Max-Age=0") == true,
                logout.header("Set-Cookie") ?? "no Set-Cookie")
            let answer4 = try await client.request("/api/session", headers: [cookie], auth: false)
            XCTAssertEqual(answer4.status, .unauthorized)
        }
    }

    func testPublicReadOpensReadingButNotWriting() async throws {
        let web = try WebHarness(publicRead: true, answer: Self.answer)
        let (clip, video, _) = try await web.addRecording()
        try await web.test { client in
            let read = try await client.request("/media/\(clip.id)/video", auth: false)
            XCTAssertEqual(read.status, .ok)
            XCTAssertEqual(read.data, video)
            let config = try await client.request("/api/config", auth: false)
            XCTAssertEqual(config.status, .forbidden, "the configuration is for admins")
            let write = try await client.post("/api/commands/record.start", auth: false)
            XCTAssertEqual(write.status, .unauthorized)
            let answer6 = try await client.request("/api/recordings/\(clip.id)", method: .delete, auth: false)
            XCTAssertEqual(answer6.status, .unauthorized)
        }
        XCTAssertEqual(web.sent, [])
    }

    func testCommandsAndErrorsOnTheAPI() async throws {
        let web = try WebHarness(answer: Self.answer)
        let (clip, _, _) = try await web.addRecording()
        try await web.test { client in
            let version = try await client.post("/api/commands/version")
            XCTAssertEqual(version.status, .ok, version.text)
            XCTAssertEqual(try version.decode(VersionInfo.self), VersionInfo(version: "9.9.9", gstreamer: "1.22.0"))
            XCTAssertEqual(version.header("Content-Type"), "application/json; charset=utf-8")

            // The core's error becomes its HTTP status, with the same JSON error as the socket's.
            let missing = try await client.request("/api/recordings/\(clip.id)?force=true", method: .delete)
            XCTAssertEqual(missing.status, .notFound)
            XCTAssertEqual(missing.errorCode, "not_found")

            // Refused before the core: an unknown command, bad arguments, a body that is not JSON, a large body, no
            // route.
            let unknown = try await client.post("/api/commands/self.destruct")
            XCTAssertEqual(unknown.status, .notFound, unknown.text)
            XCTAssertEqual(unknown.errorCode, "unknown_command")
            let badArgument = try await client.post("/api/commands/record.start", #"{"title": 42}"#)
            XCTAssertEqual(badArgument.status, .badRequest, badArgument.text)
            XCTAssertEqual(badArgument.errorCode, "bad_request")
            let notJSON = try await client.post("/api/commands/record.start", "title=x")
            XCTAssertEqual(notJSON.status, .badRequest, notJSON.text)
            let large = try await client.post(
                "/api/commands/record.start", #"{"title": "\#(String(repeating: "x", count: 70_000))"}"#)
            XCTAssertEqual(large.status, .contentTooLarge)
            let noRoute = try await client.request("/api/no-such-thing")
            XCTAssertEqual(noRoute.status, .notFound)
            XCTAssertEqual(noRoute.errorCode, "not_found")
        }
        XCTAssertEqual(web.sent, [.version, .delete(id: clip.id, force: true)])
    }
}
