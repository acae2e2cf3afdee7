import Accounts
import ApplianceProtocol
import Foundation
import HTTPTypes
import HummingbirdTesting
import XCTest

@testable import ApplianceWeb

/// The web's doors in-process: the cross-site rule, JSON bodies, paging bounds and the guessing ledger's refusal.
final class WebDoorTests: XCTestCase {
    func testCrossSiteRule() {
        func refused(
            _ method: HTTPRequest.Method = .post, site: String? = nil, origin: String? = nil,
            host: String? = "cam.local:8080"
        ) -> Bool {
            CrossSiteGuard.refusal(method: method, secFetchSite: site, origin: origin, host: host) != nil
        }
        XCTAssertFalse(refused(), "no Origin and no Sec-Fetch-Site: not a browser")
        XCTAssertFalse(refused(.get, site: "cross-site", origin: "https://evil.example"), "reading is not checked here")
        XCTAssertFalse(refused(site: "same-origin", origin: "http://cam.local:8080"))
        XCTAssertFalse(refused(site: "none"), "typed by the user")
        XCTAssertFalse(refused(site: "same-origin", origin: "null"), "Sec-Fetch-Site is believed over Origin")
        XCTAssertFalse(refused(origin: "http://CAM.local:8080"))
        XCTAssertFalse(refused(origin: "https://cam.local", host: "cam.local"))
        XCTAssertFalse(refused(origin: "https://cam.local:443", host: "cam.local"))
        XCTAssertFalse(refused(origin: "http://[::1]:8080", host: "[::1]:8080"))
        for (site, origin) in [
            ("cross-site", nil), ("same-site", nil), (nil, "https://evil.example"), (nil, "null"),
            (nil, "http://cam.local:8081"),
            (nil, "http://cam.local.evil.example:8080"), (nil, "file://"), (nil, "http://cam.local:8080/x/y"),
            (nil, ""),
        ] as [(String?, String?)] {
            XCTAssertTrue(refused(site: site, origin: origin), "\(site ?? "-") \(origin ?? "-")")
        }
        XCTAssertTrue(refused(.delete, origin: "https://evil.example"))
        XCTAssertTrue(refused(origin: "http://cam.local:8080", host: nil), "an Origin and no Host to match")
    }

    func testAForeignOriginIsRefusedWhateverTheCredentials() async throws {
        let web = try WebHarness()
        try await web.test { client in
            let foreign = try await client.post(
                "/api/commands/user.add", #"{"name":"m","role":"admin","password":"0123456789ab"}"#,
                headers: ["Origin: https://evil.example", "Content-Type: application/json"])
            XCTAssertEqual(foreign.status, .forbidden)
            XCTAssertTrue(foreign.text.contains("cross-site"), foreign.text)
            let plain = try await client.post(
                "/api/commands/user.add", #"{"name":"m","role":"admin","password":"0123456789ab"}"#,
                headers: ["Content-Type: text/plain"])
            XCTAssertEqual(plain.status, .unsupportedMediaType, plain.text)
            let form = try await client.post(
                "/api/commands/record.start", "title=x", headers: ["Content-Type: application/x-www-form-urlencoded"])
            XCTAssertEqual(form.status, .unsupportedMediaType, form.text)
            XCTAssertTrue(web.sent.isEmpty, "nothing reached the core: \(web.sent)")
            // An empty body needs no type; a declared JSON one reaches the core.
            _ = try await client.request("/api/commands/record.start", method: .post)
            _ = try await client.post(
                "/api/commands/record.start", "{}", headers: ["Content-Type: application/json; charset=utf-8"])
            XCTAssertEqual(web.sent.count, 2)
        }
    }

    func testPagingBoundsAreCheckedAtTheEdge() async throws {
        let web = try WebHarness()
        try await web.test { client in
            for query in [
                "page=9223372036854775807", "page=0", "page=-1", "per_page=0", "per_page=1001",
                "per_page=9223372036854775807",
                "page=1000001", "page=99999999999999999999",
            ] {
                let answer = try await client.request("/api/recordings?" + query)
                XCTAssertEqual(answer.status, .badRequest, query)
                XCTAssertEqual(answer.errorCode, "bad_request", query)
            }
            XCTAssertTrue(web.sent.isEmpty, "\(web.sent)")
        }
        XCTAssertThrowsError(try Command(name: "list", arguments: ["page": .int(Int.max)])) { error in
            XCTAssertEqual(
                (error as? ApplianceError)?.message, "args.page must be between 1 and 1000000, found \(Int.max)")
        }
        XCTAssertNoThrow(try Command(name: "list", arguments: ["page": .int(1_000_000), "per_page": .int(1000)]))
    }

    /// A client the guessing ledger has locked gets 429 with Retry-After, unchecked: the right password too.
    func testALockedClientIsRefusedEvenWithTheRightPassword() async throws {
        let web = try WebHarness()
        let guesses = web.context.accounts.guesses
        // The in-process client's address is "unknown" (no socket).
        for _ in 0..<GuessLedger.lockAfter { _ = guesses.failed(client: "unknown", account: nil) }
        try await web.test { client in
            let answer = try await client.request("/api/status")
            XCTAssertEqual(answer.status, .tooManyRequests, answer.text)
            XCTAssertEqual(answer.errorCode, "too_many_requests")
            let retry = Int(answer.header("Retry-After") ?? "") ?? 0
            XCTAssertTrue((1...Int(GuessLedger.lockFor)).contains(retry), "Retry-After \(retry)")
        }
    }
}
