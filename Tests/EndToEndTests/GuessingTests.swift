import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// hydra (Debian's thc-hydra) guessing an admin's password at RTSP's Digest and at the web login of a real daemon,
/// the right password 40th in its list (Tests/Security/guessing.py). Before the guessing ledger RTSP answered 100
/// guesses in 0.08 s. Now one client gets at most 30 checks a minute for one account at either door (the rest are
/// refused unchecked), hydra does not find the password, and the owner, from an address that signed in before, gets
/// in at once after each attack.
final class GuessingTests: XCTestCase {
    func testHydraGetsFewAnswersAndTheOwnerGetsInAtOnce() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/hydra") else {
            throw XCTSkip("hydra is not installed")
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "guessing-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let token = folder + "/token"
        let password = "anna-password-1"
        try "guessing-token-password\n".write(toFile: token, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: token)
        let daemon = try DaemonProcess(
            extra: "[web]\nlisten = \"127.0.0.1:0\"\ntoken_file = \"\(token)\"\n[rtsp]\nlisten = \"127.0.0.1:0\"\n")
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertEqual(try daemon.ctl(["user", "add", "anna", "--role", "admin"], input: password + "\n").status, 0)
        let web = try daemon.webURL()
        var rtsp: String?
        daemon.waitFor(10) {
            rtsp = (try? daemon.status())?.rtsp?.url
            return rtsp != nil
        }
        let pid = daemon.pid
        let seconds = 30
        let run = try ProcessOutcome.run(
            "/usr/bin/python3",
            [
                Self.script, "--web", web, "--rtsp", try XCTUnwrap(rtsp), "--token",
                "guessing-token-password", "--user", "anna", "--password", password,
                "--seconds", String(seconds),
            ], timeout: TimeInterval(4 * seconds + 60))
        XCTAssertEqual(run.status, 0, run.stderr)
        print("GuessingTests: \(run.stdout)")
        let report = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.stdout)
        for door in ["rtsp", "web"] {
            let attack = try XCTUnwrap(report[door] as? [String: Any])
            let counts = try XCTUnwrap(attack["daemon"] as? [String: Int])
            let checks = (counts["passed"] ?? 0) + (counts["failed"] ?? 0)
            XCTAssertLessThanOrEqual(checks, 30 * seconds / 60, "\(door): checks in \(seconds) s: \(counts)")
            XCTAssertGreaterThan(checks, 0, "\(door): hydra reached the daemon: \(attack)")
            XCTAssertEqual(attack["found"] as? [String], [], "\(door): hydra found nothing: \(attack)")
        }
        for step in ["owner_before", "owner_after_rtsp", "owner_after_web"] {
            let owner = try XCTUnwrap(report[step] as? [String: [Double]])
            if let login = owner["web"] {
                XCTAssertEqual(login[0], 303, "\(step): the owner's web login")
                XCTAssertLessThan(login[1], 2, "\(step): at once")
            }
            let watch = try XCTUnwrap(owner["rtsp"], step)
            XCTAssertEqual(watch[0], 200, "\(step): the owner's RTSP DESCRIBE")
            XCTAssertLessThan(watch[1], 2, "\(step): at once")
        }
        XCTAssertEqual(daemon.pid, pid)
        let refusals = daemon.log.components(separatedBy: "refused user \"anna\" from 127.0.0.1").count - 1
        XCTAssertLessThanOrEqual(refusals, 4, "logged once per burst, not once per guess: \(refusals) lines")
    }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Security/guessing.py").path
    }
}
