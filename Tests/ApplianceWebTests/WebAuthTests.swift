import Accounts
import ApplianceApp
import ApplianceBase
import Foundation
import XCTest

@testable import ApplianceWeb

/// The pure parts of who may do what: where a login may send the browser, the
/// login form, loopback host names, tokens, sessions and the password file.
final class WebAuthTests: XCTestCase {
    static let anna = Identity(name: "anna", role: .admin, generation: 0)

    func testSafeNextKeepsLocalPaths() {
        for path in ["/", "/recordings", "/recordings/abc?x=1&y=2", "/settings#backup", "/%2F"] {
            XCTAssertEqual(Routes.safeNext(path), path)
        }
    }

    func testSafeNextRefusesOtherSites() {
        for next: String? in [
            nil, "", "recordings", "//evil.example", "///evil.example", "https://evil.example/", "/\\evil.example",
            "\\\\evil.example", "javascript:alert(1)", " /x", "/" + String(repeating: "a", count: 2000),
        ] {
            XCTAssertEqual(Routes.safeNext(next), "/", next ?? "nil")
        }
    }

    /// Browsers remove tabs and newlines from a Location before parsing it (WHATWG URL), so "/\t/evil.example"
    /// sends the user to //evil.example: control characters must not pass.
    func testSafeNextRefusesControlCharacters() {
        for next in [
            "/\t/evil.example", "/\n/evil.example", "/\r\n/evil.example", "/\t\t/evil.example", "/x\r\nSet-Cookie: a=b",
            "/\u{0}x",
        ] {
            XCTAssertEqual(Routes.safeNext(next), "/", next.debugDescription)
        }
    }

    func testLoginFormParsing() {
        XCTAssertEqual(Routes.form("password=abc&next=%2Frecordings"), ["password": "abc", "next": "/recordings"])
        XCTAssertEqual(Routes.form("password=a+b%2Bc%26d%3De"), ["password": "a b+c&d=e"])
        XCTAssertEqual(Routes.form("password=x=y"), ["password": "x=y"], "only the first = splits")
        XCTAssertEqual(Routes.form("flag&empty=&&"), ["flag": "", "empty": ""])
        XCTAssertEqual(Routes.form(""), [:])
        XCTAssertEqual(Routes.form("p=1&p=2")["p"], "2", "the last value wins")
        XCTAssertEqual(Routes.form("password=%zz")["password"], "", "bad percent-encoding is no password")
        XCTAssertEqual(Routes.form("pass%77ord=%C3%BC")["password"], "ü")
    }

    func testLoopbackHostNames() {
        for host: String? in [
            nil, "localhost", "localhost:8080", "127.0.0.1", "127.0.0.1:0", "127.1.2.3:80", "[::1]", "[::1]:8080",
        ] {
            XCTAssertTrue(AccessMiddleware.isLoopbackHost(host), host ?? "nil")
        }
        for host in [
            "evil.example", "evil.example:8080", "localhost.evil.example", "192.168.1.2:8080", "[::2]:80", "10.0.0.1",
            "",
        ] {
            XCTAssertFalse(AccessMiddleware.isLoopbackHost(host), host)
        }
    }

    /// A DNS name that starts like a loopback address is still a DNS name (a rebinding attacker owns it).
    func testLoopbackLookalikeNamesAreNotLoopback() {
        for host in [
            "127.0.0.1.evil.example", "127.0.0.1.evil.example:8080", "127.evil.example", "127.0.0.1.nip.io:80",
        ] {
            XCTAssertFalse(AccessMiddleware.isLoopbackHost(host), host)
        }
    }

    func testOpenAndPagePaths() {
        for path in ["/login", "/assets/app.css", "/assets/app.js", "/s/abc", "/s/abc/video", "/favicon.ico"] {
            XCTAssertTrue(AccessMiddleware.isOpen(path), path)
        }
        for path in [
            "/", "/api/status", "/media/x/video", "/metrics", "/logout", "/loginx", "/settings", "/assets", "/s",
        ] {
            XCTAssertFalse(AccessMiddleware.isOpen(path), path)
        }
        for path in ["/", "/recordings", "/settings", "/recordings/abc"] {
            XCTAssertTrue(AccessMiddleware.isPage(path), path)
        }
        for path in ["/api/status", "/media/x/video", "/live.mjpeg", "/metrics"] {
            XCTAssertFalse(AccessMiddleware.isPage(path), path)
        }
    }

    func testRandomTokensAndComparison() {
        let tokens = (0..<100).map { _ in RandomToken.make() }
        XCTAssertEqual(Set(tokens).count, 100)
        for token in tokens {
            XCTAssertEqual(token.count, 43, "32 bytes of URL-safe base64 without padding")
            XCTAssertTrue(
                token.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }, token)
        }
        XCTAssertTrue(RandomToken.equal("abc", "abc"))
        XCTAssertTrue(RandomToken.equal("", ""))
        XCTAssertFalse(RandomToken.equal("abc", "abd"))
        XCTAssertFalse(RandomToken.equal("abc", "ab"))
        XCTAssertFalse(RandomToken.equal("ab", "abc"))
        XCTAssertFalse(RandomToken.equal("abc", ""))
        XCTAssertFalse(RandomToken.equal("abc\u{0}", "abc"))
    }

    func testSessionsExpireAndCanBeRemoved() {
        let store = SessionStore()
        let now = Date()
        let session = store.create(for: Self.anna, now: now)
        XCTAssertNotEqual(session.id, session.csrf)
        XCTAssertEqual(store.find(session.id, now: now), session)
        XCTAssertEqual(store.find(session.id, now: now.addingTimeInterval(SessionStore.lifetime - 1)), session)
        XCTAssertNil(store.find(session.id, now: now.addingTimeInterval(SessionStore.lifetime)))
        XCTAssertNil(store.find(session.id, now: now), "an expired session is gone for good")
        let other = store.create(for: Self.anna, now: now)
        store.remove(other.id)
        XCTAssertNil(store.find(other.id, now: now))
        XCTAssertNil(store.find("", now: now))
        XCTAssertNil(store.find(other.csrf, now: now), "the CSRF token is not a session id")
    }

    func testSessionLimitDropsTheOldest() {
        let store = SessionStore()
        let start = Date()
        let oldest = store.create(for: Self.anna, now: start)
        var last = oldest
        for index in 1...SessionStore.limit {
            last = store.create(for: Self.anna, now: start.addingTimeInterval(Double(index)))
        }
        let later = start.addingTimeInterval(Double(SessionStore.limit))
        XCTAssertNil(store.find(oldest.id, now: later))
        XCTAssertEqual(store.find(last.id, now: later), last)
    }

    func testCookiesAreHttpOnlyAndStrict() {
        let session = Session(id: "abc", csrf: "def", expires: Date(), identity: Self.anna)
        let cookie = SessionStore.cookie(for: session)
        XCTAssertTrue(cookie.hasPrefix("appliance_session=abc;"), cookie)
        for attribute in ["Path=/", "HttpOnly", "SameSite=Strict", "Max-Age=\(Int(SessionStore.lifetime))"] {
            XCTAssertTrue(cookie.contains(attribute), "\(attribute) in \(cookie)")
        }
        XCTAssertFalse(cookie.contains("def"), "the CSRF token is never in the cookie")
        for attribute in ["appliance_session=;", "Max-Age=0", "HttpOnly", "SameSite=Strict"] {
            XCTAssertTrue(SessionStore.clearingCookie.contains(attribute), attribute)
        }
    }

    func testPasswordFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "web-password-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func file(_ text: String) throws -> String {
            let path = directory.appendingPathComponent(UUID().uuidString).path
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path)
            return path
        }
        let password = try Password(file: try file("  long-enough-secret \nsecond line\n"))
        XCTAssertTrue(password.matches("long-enough-secret"))
        XCTAssertFalse(password.matches("  long-enough-secret "))
        XCTAssertFalse(password.matches("second line"))
        XCTAssertFalse(password.matches(""))
        XCTAssertTrue(
            try Password(file: try file("\r\n\nabcdefgh\r\n")).matches("abcdefgh"), "blank lines before it are skipped")
        for bad in ["", "\n", "short\n", "       \n"] {
            XCTAssertThrowsError(try Password(file: try file(bad)), bad.debugDescription) { error in
                XCTAssertTrue("\(error)".contains("at least 8 characters"), "\(error)")
            }
        }
        XCTAssertThrowsError(try Password(file: directory.path + "/missing")) { error in
            XCTAssertTrue("\(error)".contains("token_file") && "\(error)".contains("/missing"), "\(error)")
        }
        // Like every other secret file: one its group or others may read is refused, saying how to fix it.
        let open = try file("long-enough-secret\n")
        for mode in [0o644, 0o640, 0o604, 0o660] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: open)
            XCTAssertThrowsError(try Password(file: open), String(mode, radix: 8)) { error in
                XCTAssertTrue("\(error)".contains("readable by others") && "\(error)".contains("chmod 600"), "\(error)")
            }
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: open)
        XCTAssertTrue(try Password(file: open).matches("long-enough-secret"), "0400 is the owner's alone")
    }
}
