import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Accounts on a running daemon: made with `ctl user` (the password from standard input or a file), used with
/// curl (HTTP Basic, an API token), roles enforced, the token_file password still an admin's, and no password or
/// token in clear under the data folder or in the log.
final class AccountsEndToEndTests: XCTestCase {
    static let adminPassword = "anna's password 1"
    static let viewerPassword = "vic's password 1"

    static func basic(_ name: String, _ password: String) -> String {
        "Authorization: Basic " + Data("\(name):\(password)".utf8).base64EncodedString()
    }

    func testAccountsFromTheCLIRolesOnTheAPIAndNoSecretLeftInClear() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        let daemon = web.daemon
        // Two accounts: the password on standard input, and in a file.
        let added = try daemon.ctl(["user", "add", "anna", "--role", "admin"], input: Self.adminPassword + "\n")
        XCTAssertEqual(added.status, 0, added.stderr)
        let passwordFile = daemon.dataDir + "/../vic.password"
        try (Self.viewerPassword + "\n").write(toFile: passwordFile, atomically: true, encoding: .utf8)
        XCTAssertEqual(
            try daemon.ctl(["user", "add", "vic", "--role", "viewer", "--password-file", passwordFile]).status, 0)
        try checkBadInput(daemon)
        let list = try daemon.ctl(["--json", "user", "list"])
        let users = try WireFormat.decoder.decode(UserList.self, from: Data(list.stdout.utf8))
        XCTAssertEqual(users.items.map(\.name), ["anna", "vic"])
        XCTAssertEqual(users.items.map(\.role), [.admin, .viewer])
        XCTAssertTrue(users.tokenFile)
        let token = try daemon.ctl(["user", "token", "vic"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(token.hasPrefix("apl_"), token)

        let clip = try web.recordClip(seconds: 1)
        let viewer = Self.basic("vic", Self.viewerPassword)
        let admin = Self.basic("anna", Self.adminPassword)
        // The viewer reads and plays, with its password or its token; it cannot delete or record.
        for credential in [viewer, "Authorization: Bearer \(token)"] {
            XCTAssertEqual(try web.request("/api/recordings", headers: [credential], auth: false).status, 200)
            XCTAssertEqual(try web.request("/media/\(clip.id)/video", headers: [credential], auth: false).status, 200)
            XCTAssertEqual(
                try web.request("/api/recordings/\(clip.id)", method: "DELETE", headers: [credential], auth: false)
                    .status, 403)
            XCTAssertEqual(try web.post("/api/commands/record.start", headers: [credential], auth: false).status, 403)
        }
        XCTAssertNil(try daemon.status().recording, "the viewer's record.start reached nothing")
        // The admin can, and so can the token_file password (bearer, as before accounts).
        XCTAssertEqual(try web.post("/api/commands/record.start", headers: [admin], auth: false).status, 200)
        XCTAssertEqual(try web.post("/api/commands/record.stop").status, 200)
        XCTAssertEqual(
            try web.request("/api/recordings/\(clip.id)?force=true", method: "DELETE", headers: [admin], auth: false)
                .status, 200)
        // A wrong password: 401, a log line naming the account and the client.
        XCTAssertEqual(
            try web.request("/api/status", headers: [Self.basic("vic", "not the password")], auth: false).status, 401)
        XCTAssertTrue(daemon.waitFor(5) { daemon.log.contains("refused user \"vic\" from 127.0.0.1") }, daemon.log)
        // Its API tokens revoked: the token is refused at once, the password still works.
        XCTAssertEqual(try daemon.ctl(["user", "revoke-tokens", "vic"]).status, 0)
        XCTAssertEqual(
            try web.request("/api/status", headers: ["Authorization: Bearer \(token)"], auth: false).status, 401)
        XCTAssertEqual(try web.request("/api/status", headers: [viewer], auth: false).status, 200)
        // A removed account is refused at once.
        XCTAssertEqual(try daemon.ctl(["user", "remove", "vic"]).status, 0)
        XCTAssertEqual(try web.request("/api/status", headers: [viewer], auth: false).status, 401)
        XCTAssertEqual(
            try web.request("/api/status", headers: ["Authorization: Bearer \(token)"], auth: false).status, 401)

        try assertNoSecret(
            [Self.adminPassword, Self.viewerPassword, token, String(token.dropFirst(4)), WebDaemon.password],
            under: daemon.dataDir, orIn: daemon.log)
    }

    /// Bad input to `ctl user`: one line, a non-zero exit, and the daemon goes on.
    private func checkBadInput(_ daemon: DaemonProcess) throws {
        let cases: [([String], String?, String)] = [
            (["user", "add", "vic", "--role", "viewer"], "other password\n", "exists already"),
            (["user", "add", "Bad Name", "--role", "viewer"], "a good password\n", "a user name is"),
            (["user", "add", "shorty", "--role", "viewer"], "short\n", "8 to 72 bytes"),
            (["user", "add", "nobody", "--role", "viewer"], "", "no password given"),
            (["user", "passwd", "ghost"], "a good password\n", "no user"),
            (["user", "remove", "ghost"], nil, "no user"),
        ]
        for (arguments, input, message) in cases {
            let result = try daemon.ctl(arguments, input: input)
            XCTAssertNotEqual(result.status, 0, "\(arguments)")
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertTrue(result.stderr.contains(message), "\(arguments): \(result.stderr)")
        }
        let role = try daemon.ctl(["user", "add", "x1", "--role", "king"], input: "a good password\n")
        XCTAssertNotEqual(role.status, 0)
        XCTAssertEqual(try daemon.ctl(["user", "list"]).status, 0, "the daemon answers on")
    }

    private func assertNoSecret(
        _ secrets: [String], under folder: String, orIn log: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let walker = FileManager.default.enumerator(atPath: folder)
        var files = 0
        while let relative = walker?.nextObject() as? String {
            let path = folder + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let bytes = FileManager.default.contents(atPath: path)
            else { continue }
            files += 1
            for secret in secrets {
                XCTAssertNil(
                    bytes.range(of: Data(secret.utf8)), "\(relative) holds a secret in clear", file: file, line: line)
            }
        }
        XCTAssertGreaterThan(files, 3, "the data folder was read", file: file, line: line)
        for secret in secrets {
            XCTAssertFalse(log.contains(secret), "the log holds a secret in clear", file: file, line: line)
        }
    }
}
