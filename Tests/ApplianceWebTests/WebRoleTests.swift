import Accounts
import ApplianceProtocol
import Foundation
import HummingbirdTesting
import XCTest

@testable import ApplianceWeb

/// Accounts and roles on the dashboard, in-process on real accounts (bcrypt, SQLite): the route table decides the
/// role, so the viewer's 403s are enumerated from the router itself (`/api/routes`), not from a list kept here.
final class WebRoleTests: XCTestCase {
    static let viewerPassword = "viewer password 1"
    static let adminPassword = "admin password 1"

    private func harness() async throws -> WebHarness {
        let web = try WebHarness(answer: { command throws(ApplianceError) in
            throw ApplianceError(.unavailable, "reached the core: \(command.name)")
        })
        _ = try await web.context.accounts.add(name: "vic", role: .viewer, password: Secret(Self.viewerPassword))
        _ = try await web.context.accounts.add(name: "anna", role: .admin, password: Secret(Self.adminPassword))
        return web
    }

    static func basic(_ name: String, _ password: String) -> String {
        "Authorization: Basic " + Data("\(name):\(password)".utf8).base64EncodedString()
    }

    /// A concrete path for a route's pattern (`{id}` and the like filled in).
    static func concrete(_ pattern: String) -> String {
        pattern.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix("{") ? "0b7c2a4e-1111-4222-8333-944455556666" : String(part)
        }.joined(separator: "/")
    }

    func testAViewerIsRefusedEveryAdminRouteTheRouterHas() async throws {
        let web = try await harness()
        try await web.test { client in
            let routes = try await client.request(
                "/api/routes", headers: [Self.basic("anna", Self.adminPassword)], auth: false)
            XCTAssertEqual(routes.status, .ok)
            struct Table: Decodable {
                struct Entry: Decodable {
                    var method: String
                    var path: String
                    var requires: String
                }
                var items: [Entry]
            }
            let table = try routes.decode(Table.self).items
            XCTAssertGreaterThan(table.count, 40, "the whole router")
            let changing = table.filter { !["GET", "HEAD"].contains($0.method) }
            XCTAssertTrue(
                changing.contains {
                    $0.path == "/api/recordings/{id}" && $0.method == "DELETE" && $0.requires == "admin"
                })
            XCTAssertEqual(
                Set(changing.filter { $0.requires == "viewer" }.map { "\($0.method) \($0.path)" }),
                RoutePolicy.viewerChanges)
            let viewer = Self.basic("vic", Self.viewerPassword)
            for route in table where route.requires == "admin" {
                let answer = try await client.request(
                    Self.concrete(route.path), method: .init(route.method)!, headers: [viewer], auth: false, body: "{}")
                XCTAssertEqual(answer.status, .forbidden, "\(route.method) \(route.path)")
                XCTAssertEqual(answer.errorCode, "forbidden", "\(route.method) \(route.path)")
            }
            // The command route: every command that needs an admin, by name.
            for name in Command.Name.allCases {
                let answer = try await client.post("/api/commands/\(name.rawValue)", headers: [viewer], auth: false)
                if name.needsAdmin {
                    XCTAssertEqual(answer.status, .forbidden, name.rawValue)
                } else {
                    XCTAssertNotEqual(answer.status, .forbidden, name.rawValue)
                }
            }
            // The admin passes the same routes (to the core, or to a 4xx of the route's own).
            let admin = Self.basic("anna", Self.adminPassword)
            for route in table where route.requires == "admin" {
                let answer = try await client.request(
                    Self.concrete(route.path), method: .init(route.method)!, headers: [admin], auth: false, body: "{}")
                XCTAssertNotEqual(answer.status, .forbidden, "\(route.method) \(route.path)")
                XCTAssertNotEqual(answer.status, .unauthorized, "\(route.method) \(route.path)")
            }
        }
        let reached = Set(web.sent.map(\.name))
        let viewerCommands = Set(Command.Name.allCases.filter { !$0.needsAdmin }.map(\.rawValue))
        XCTAssertTrue(
            reached.isSuperset(of: ["delete", "lock", "share", "users"]), "the admin reached the core: \(reached)")
        XCTAssertTrue(viewerCommands.isSuperset(of: ["status", "list", "snapshot"]))
    }

    func testAViewerReadsAndPlaysButCannotChangeAnything() async throws {
        let web = try await harness()
        let (clip, video, _) = try await web.addRecording()
        try await web.test { client in
            let viewer = Self.basic("vic", Self.viewerPassword)
            let played = try await client.request("/media/\(clip.id)/video", headers: [viewer], auth: false)
            XCTAssertEqual(played.status, .ok)
            XCTAssertEqual(played.data, video)
            let session = try await client.request("/api/session", headers: [viewer], auth: false)
            XCTAssertTrue(
                session.text.contains("\"role\":\"viewer\"") && session.text.contains("\"user\":\"vic\""), session.text)
            for (path, method) in [
                ("/api/recordings/\(clip.id)", "DELETE"), ("/api/commands/record.start", "POST"),
                ("/api/recordings/\(clip.id)/lock", "POST"), ("/api/recordings/\(clip.id)/share", "POST"),
            ] {
                let answer = try await client.request(
                    path, method: .init(method)!, headers: [viewer], auth: false, body: "{}")
                XCTAssertEqual(answer.status, .forbidden, path)
                XCTAssertTrue(
                    answer.text.contains("admin role") && answer.text.contains("\\\"vic\\\" is a viewer"), answer.text)
            }
            let settings = try await client.request("/settings", headers: [viewer], auth: false)
            XCTAssertEqual(settings.status, .forbidden)
        }
        XCTAssertEqual(web.sent, [], "nothing a viewer was refused reached the core")
    }

    func testWrongPasswordsAre401sWithAnEventAndTheTokenFileStillWorks() async throws {
        let web = try await harness()
        let events = web.events.subscribe()
        try await web.test { client in
            for header in [
                Self.basic("vic", "wrong password"), Self.basic("nobody", Self.viewerPassword),
                "Authorization: Bearer apl_wrong",
            ] {
                let answer = try await client.request("/api/status", headers: [header], auth: false)
                XCTAssertEqual(answer.status, .unauthorized, header)
            }
            // The token_file password: the admin `appliance`, as a bearer token and with Basic.
            let bearer = try await client.post("/api/commands/users")
            XCTAssertNotEqual(bearer.status, .forbidden)
            XCTAssertNotEqual(bearer.status, .unauthorized)
            let basic = try await client.request(
                "/api/routes", headers: [Self.basic("appliance", WebHarness.password)], auth: false)
            XCTAssertEqual(basic.status, .ok)
        }
        var failures: [AuthFailure] = []
        for await record in events.events {
            if case .authFailed(let failure) = record.event { failures.append(failure) }
            if failures.count == 3 { break }
        }
        XCTAssertEqual(failures.map(\.user), ["vic", "nobody", nil])
        XCTAssertTrue(failures.allSatisfy { $0.door == "web" && !$0.client.isEmpty })
    }

    func testALoginIsOnePersonsSessionAndAPasswordChangeEndsIt() async throws {
        let web = try await harness()
        try await web.test { client in
            let login = try await client.request(
                "/login", method: .post, headers: ["Content-Type: application/x-www-form-urlencoded"],
                auth: false, body: "user=vic&password=viewer+password+1&next=%2F")
            XCTAssertEqual(login.status, .seeOther)
            let cookie = "Cookie: " + (login.header("Set-Cookie")?.split(separator: ";").first.map(String.init) ?? "")
            let session = try await client.request("/api/session", headers: [cookie], auth: false)
            XCTAssertTrue(session.text.contains("\"user\":\"vic\""), session.text)
            let wrong = try await client.request("/login", method: .post, auth: false, body: "user=vic&password=nope")
            XCTAssertEqual(wrong.status, .unauthorized)
            _ = try await web.context.accounts.setPassword(name: "vic", password: Secret("another password"))
            let ended = try await client.request("/api/session", headers: [cookie], auth: false)
            XCTAssertEqual(ended.status, .unauthorized, "the session opened with the old password has ended")
        }
    }
}
