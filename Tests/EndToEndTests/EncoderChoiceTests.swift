import ApplianceProtocol
import Diagnostics
import Foundation
import TestSupport
import XCTest

/// `[video] encoder = "auto"` in the real daemon: each candidate tried in a child process, a broken one and one that
/// hangs (its child is killed at the limit) cost only themselves; the choice is in status, `ctl status`, metrics,
/// the log and `doctor`; a restart in the same boot reuses it; GST_PLUGIN_FEATURE_RANK moves an encoder first; and
/// the clip recorded with the chosen encoder plays.
final class EncoderChoiceTests: XCTestCase {
    static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    /// A daemon on `auto` with its own pipelines folder: the repository's plus a broken and a hanging candidate.
    func daemon(candidates: [String]) throws -> DaemonProcess {
        try Self.autoDaemon(
            fragments: [
                "broken": "x264enc bitrate=${bitrate_kbps} ! capsfilter caps=video/x-h264,profile=no-such-profile",
                // A driver that never returns: the child's pipeline cannot even be stopped within the parent's limit.
                "hang": "x264enc bitrate=${bitrate_kbps} ! identity sleep-time=60000000",
            ], candidates: candidates, trialS: 1)
    }

    /// A daemon at 320x240 on `auto` over `candidates`, with its own pipelines folder: the repository's plus
    /// `fragments` (encoders/NAME.gst).
    static func autoDaemon(fragments: [String: String], candidates: [String], trialS: Int, extra: String = "") throws
        -> DaemonProcess
    {
        let daemon = try DaemonProcess()
        daemon.seedsEncoderChoice = false  // the trials are the subject
        let pipelines = try ownPipelines(
            for: daemon, Dictionary(uniqueKeysWithValues: fragments.map { ("encoders/\($0.key).gst", $0.value) }))
        let list = candidates.map { "\"\($0)\"" }.joined(separator: ", ")
        let config =
            "pipelines_dir = \"\(pipelines)\"\n"
            + DaemonProcess.config(
                dataDir: daemon.dataDir,
                extra: """
                    [video]
                    width = 320
                    height = 240
                    encoder = "auto"
                    encoder_candidates = [\(list)]
                    encoder_trial_s = \(trialS)
                    \(extra)
                    """)
        try config.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        return daemon
    }

    /// A copy of the repository's pipelines folder in the daemon's folder, with `files` (paths inside it) written
    /// over it; returns its path, for `pipelines_dir`.
    static func ownPipelines(for daemon: DaemonProcess, _ files: [String: String]) throws -> String {
        let pipelines = daemon.directory.appendingPathComponent("pipelines").path
        try FileManager.default.copyItem(atPath: repository + "/pipelines", toPath: pipelines)
        for (path, text) in files {
            try text.write(toFile: pipelines + "/" + path, atomically: true, encoding: .utf8)
        }
        return pipelines
    }

    func testAutoTriesEachCandidateOutsideTheDaemonAndRemembersTheChoice() throws {
        let daemon = try daemon(candidates: ["v4l2h264", "broken", "hang", "openh264", "x264"])
        try daemon.start(timeout: 90)
        let choice = try XCTUnwrap(try daemon.status().encoderChoice)
        XCTAssertEqual([choice.encoder, choice.element, choice.how.rawValue], ["openh264", "openh264enc", "trial"])
        XCTAssertEqual(
            choice.trials.map { "\($0.name):\($0.result.rawValue)" },
            ["v4l2h264:absent", "broken:failed", "hang:timed_out", "openh264:passed", "x264:not_tried"],
            "\(choice.trials)")
        XCTAssertEqual(choice.trials[0].detail, "not installed: v4l2h264enc")
        XCTAssertTrue(choice.trials[2].detail.hasPrefix("no answer within 11 s (killed)"), choice.trials[2].detail)
        XCTAssertEqual(try daemon.status().encoder, "openh264")
        XCTAssertTrue(
            daemon.log.contains("encoder openh264 (openh264enc) chosen by trial: 15")
                || daemon.log.contains("encoder openh264 (openh264enc) chosen by trial: 30"), daemon.log)
        XCTAssertTrue(daemon.log.contains("encoder hang (x264enc) timed_out"), daemon.log)
        XCTAssertEqual(
            try daemon.metrics()["appliance_encoder_info"]?.value([
                "element": "openh264enc", "encoder": "openh264", "how": "trial",
            ]), 1)
        let ctl = try daemon.ctl(["status"])
        XCTAssertTrue(
            ctl.stdout.contains(
                """
                encoder: openh264 (openh264enc), chosen by trial: v4l2h264 absent, broken failed, hang timed_out, \
                openh264 passed
                """
            ),
            ctl.stdout)

        // The recording is the chosen encoder's, and plays.
        _ = try daemon.recordStart()
        try daemon.waitUntilRecorded(2)
        let clip = try daemon.recordStop()
        let decode = try ProcessOutcome.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", clip.path, "-f", "null", "-"], timeout: 60)
        XCTAssertEqual(decode.status, 0)
        XCTAssertEqual(decode.stderr, "")
        XCTAssertGreaterThanOrEqual(clip.videoFrames, 30)

        // Doctor reads the same choice; a restart in the same boot does not try again.
        let doctor = try ProcessOutcome.run(
            DaemonProcess.binary, ["doctor", "--config", daemon.configPath], timeout: 120)
        XCTAssertTrue(
            doctor.stdout.contains(
                """
                video-encoder: auto chose openh264 (cached: v4l2h264 absent, broken failed, hang timed_out, \
                openh264 passed); openh264 encoded 30 of 30 frames
                """
            ),
            doctor.stdout)
        XCTAssertEqual(daemon.stop(), 0)
        let began = Date()
        try daemon.start(timeout: 60)
        XCTAssertEqual(try daemon.status().encoderChoice?.how, .cached)
        XCTAssertLessThan(Date().timeIntervalSince(began), 11, "no trial (the hanging one alone takes 11 s)")
        XCTAssertTrue(daemon.log.contains("encoder openh264 (openh264enc), chosen earlier in this boot"), daemon.log)
        daemon.stop()
    }

    func testARankRaisedWithGStreamersVariableIsTriedFirst() throws {
        let daemon = try daemon(candidates: ["openh264", "x264"])
        daemon.environment["GST_PLUGIN_FEATURE_RANK"] = "x264enc:MAX"
        try daemon.start(timeout: 60)
        defer { daemon.stop() }
        let choice = try XCTUnwrap(try daemon.status().encoderChoice)
        XCTAssertEqual(choice.trials.map { "\($0.name):\($0.result.rawValue)" }, ["x264:passed", "openh264:not_tried"])
    }

    func testNoWorkingEncoderStopsTheStartWithOneLine() throws {
        let daemon = try daemon(candidates: ["v4l2h264", "broken"])
        let outcome = try ProcessOutcome.run(DaemonProcess.binary, ["run", "--config", daemon.configPath], timeout: 60)
        XCTAssertNotEqual(outcome.status, 0)
        let line = outcome.stderr.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(
            line.contains("no H.264 encoder works: v4l2h264 absent (not installed: v4l2h264enc); broken failed ("),
            outcome.stderr)
    }
}
