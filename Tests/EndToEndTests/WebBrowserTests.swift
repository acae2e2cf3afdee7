import Foundation
import TestSupport
import XCTest

/// The web dashboard in a real browser: Tests/Web/browser_test.py drives Debian's headless chromium through
/// chromedriver (selenium 4) against a daemon it starts itself with the debug binary — login, the live MJPEG picture,
/// recording from the page, the recordings grid, playing and seeking a clip, rename, lock/delete, share links in a
/// fresh browser and revoking them. The script prints one line per check and exits 0 only if every check passed;
/// its screenshots (one PNG per page) are kept in a temporary folder whose path the test prints.
final class WebBrowserTests: XCTestCase {
    static let chromium = "/usr/bin/chromium"
    static let chromedriver = "/usr/bin/chromedriver"

    /// Tests/Web/browser_test.py, from this file's place in the repository.
    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Web/browser_test.py").path
    }

    /// Runs the script with `arguments` after its own; nil (and a failure) when a tool it needs is missing.
    private func runScript(_ arguments: [String] = []) throws -> (result: ProcessOutcome, output: String, shots: URL)? {
        // `make test` installs all three (packaging/install-deps.sh --test): missing ones fail the test, never skip it.
        for tool in [Self.chromium, Self.chromedriver] where !FileManager.default.isExecutableFile(atPath: tool) {
            XCTFail("\(tool) is not installed (packaging/install-deps.sh --test installs chromium and chromium-driver)")
            return nil
        }
        // python3 as on PATH: the one install-deps.sh installs selenium into (as MetricsTests and WebDAVServer run it).
        // The script then runs on that interpreter itself, not through a launcher (a pyenv shim is a bash script that
        // stays the parent), so that a timeout's SIGTERM reaches the script, which then stops its daemon and browsers.
        let selenium = try ProcessOutcome.run(
            "/usr/bin/env", ["python3", "-c", "import sys, selenium; print(sys.executable)"], timeout: 60)
        let python = selenium.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard selenium.status == 0, FileManager.default.isExecutableFile(atPath: python) else {
            XCTFail("python3 cannot import selenium (packaging/install-deps.sh --test installs it): \(selenium.stderr)")
            return nil
        }
        let binary = DaemonProcess.binary
        XCTAssertTrue(FileManager.default.isExecutableFile(atPath: binary), "no appliance binary at \(binary)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: Self.script), "no browser test script at \(Self.script)")

        let shots = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appliance-web-shots-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: shots, withIntermediateDirectories: true)
        print("WebBrowserTests: screenshots in \(shots.path)")

        let started = Date()
        // The script stops its own daemon and browsers on SIGTERM, which ProcessOutcome.run sends on a timeout.
        let result = try ProcessOutcome.run(
            python, ["-u", Self.script, "--binary", binary, "--out", shots.path] + arguments, timeout: 900)
        let output = result.stdout + (result.stderr.isEmpty ? "" : "\n---- stderr ----\n" + result.stderr)
        print(output)
        print(
            """
            WebBrowserTests: browser test took \(String(format: "%.1f", Date().timeIntervalSince(started))) s; \
            screenshots in \(shots.path)
            """
        )
        XCTAssertEqual(
            result.status, 0,
            "the browser test failed (exit status \(result.status)); screenshots in \(shots.path):\n\(output)")
        return (result, output, shots)
    }

    /// openh264 (what `auto` picks on a board without a hardware encoder, this machine too) in the browser's WebRTC:
    /// its constrained-baseline stream plays on the live page. (The whole dashboard runs on x264 above.)
    func testLiveWebRTCWithOpenH264() throws {
        guard let (result, output, _) = try runScript(["--encoder", "openh264", "--live-only"]) else { return }
        let passes = result.stdout.split(separator: "\n").filter { $0.hasPrefix("PASS ") }
        XCTAssertTrue(
            passes.contains { $0.contains("live: the picture plays over WebRTC") && $0.hasSuffix("encoder openh264") },
            output)
        XCTAssertFalse(output.contains("FAIL "), output)
    }

    /// Over HTTPS with the device's own certificate (`tls = "on"`), which the browser accepts by its public key as a
    /// user does after comparing the fingerprint: login, the fingerprint on the login page, a Secure session cookie,
    /// http:// redirected, and the live picture over WebRTC (WHEP over HTTPS).
    func testDashboardOverHTTPSWithTheDevicesOwnCertificate() throws {
        guard let (result, output, _) = try runScript(["--tls", "--live-only"]) else { return }
        let passes = result.stdout.split(separator: "\n").filter { $0.hasPrefix("PASS ") }
        for check in [
            "login: right password opens the live page", "live: the picture plays over WebRTC",
            "talk: holding Talk plays the browser's microphone on the device's speaker",
            "https: the login page shows the certificate's SHA-256 fingerprint", "https: the session cookie is Secure",
            "https: http:// on the same port lands on the https:// page",
        ] {
            XCTAssertTrue(passes.contains { $0.contains(check) }, "\(check):\n\(output)")
        }
        XCTAssertFalse(output.contains("FAIL "), output)
    }

    /// Two channels (front at the default size, rear at 320x180) recording loop segments: the timeline has a
    /// labelled row per channel holding that channel's spans, and a click in a row plays that channel's picture.
    func testTheTimelineAndTheLivePageHaveARowAndATilePerChannel() throws {
        guard let (result, output, shots) = try runScript(["--channels"]) else { return }
        let passes = result.stdout.split(separator: "\n").filter { $0.hasPrefix("PASS ") }
        XCTAssertTrue(passes.contains { $0.contains("timeline: one row per channel") }, output)
        XCTAssertTrue(passes.contains { $0.contains("live: a tile per channel") }, output)
        XCTAssertFalse(output.contains("FAIL "), output)
        for shot in ["timeline-channels", "live-channels"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: shots.appendingPathComponent(shot + ".png").path))
        }
    }

    func testDashboardInARealBrowser() throws {
        guard let (result, output, shots) = try runScript() else { return }
        // Every check ran and passed: a summary, no line that says FAIL, and all the checks there are (29 today).
        let lines = result.stdout.split(separator: "\n")
        let summary = lines.last { $0.hasPrefix("SUMMARY: ") }.map(String.init)
        XCTAssertNotNil(summary, "the browser test printed no summary:\n\(output)")
        XCTAssertFalse(summary?.contains("INTERRUPTED") ?? false, "the browser test was interrupted:\n\(output)")
        let failures = lines.filter { $0.hasPrefix("FAIL ") }
        XCTAssertTrue(failures.isEmpty, "failed checks:\n\(failures.joined(separator: "\n"))")
        let passes = lines.filter { $0.hasPrefix("PASS ") }.count
        XCTAssertGreaterThanOrEqual(passes, 29, "expected at least 29 passing checks, saw \(passes):\n\(output)")
        XCTAssertTrue(
            lines.contains { $0.hasPrefix("PASS talk: over plain HTTP") },
            "the insecure origin's Talk message was checked:\n\(output)")
        for page in [
            "login", "live", "recordings", "clip", "share", "settings", "activity", "timeline", "timeline-scrub",
            "timeline-player", "timeline-phone",
        ] {
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: shots.appendingPathComponent(page + ".png").path),
                "no screenshot of \(page)")
        }
    }
}
