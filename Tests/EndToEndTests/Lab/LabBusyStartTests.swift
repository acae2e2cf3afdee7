import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// A start on a board that is busy (a filesystem check, a package update at boot), in the VM lab (issue 59, item 5):
/// a busy loop on every core of the guest, and a trial limit the loaded guest cannot meet, so that every
/// encoder's trial times out. The daemon still records the real camera, on a software encoder it has not tried
/// (`provisional`, said once), within a minute of its start on a board (75 s under the lab's emulated CPU). It used
/// to say "no H.264 encoder works" and record nothing. The daemon runs at the priority its unit sets (`Nice=-5`); the
/// busy loops at the default.
final class LabBusyStartTests: XCTestCase {
    func testADaemonWhoseTrialsAllTimeOutStillRecordsWithinAMinute() throws {
        try Lab.require()
        let node = try Lab.vivid()
        try Lab.moveVividPicture(node)
        let hogs = try (0..<ProcessInfo.processInfo.activeProcessorCount).map { _ in
            let hog = Process()
            hog.executableURL = URL(fileURLWithPath: "/bin/sh")
            hog.arguments = ["-c", "while :; do :; done"]
            try hog.run()
            return hog
        }
        defer {
            for hog in hogs {
                hog.terminate()
                hog.waitUntilExit()
            }
        }
        let config = LabCameraTests.config(width: 320, height: 180, framerate: 10)
            .replacingOccurrences(of: "[web]", with: "encoder_trial_s = 1.0\n[web]")  // in [video]
        let daemon = try DaemonProcess(extra: config, cameras: LabCameraTests.camera(node), root: Lab.scratch)
        daemon.seedsEncoderChoice = false  // the trials are the subject
        // At the priority its systemd unit gives it (Nice=-5: recording before background work).
        daemon.launcher = ["/usr/bin/nice", "-n", "-5"]
        let started = Date()
        try daemon.start(timeout: 120)
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            _ = try daemon.recordStart(title: "busy start")
            try daemon.waitForRecording("its first frame", timeout: 60) { $0.videoFrames > 0 }
            let recordingAfter = Date().timeIntervalSince(started)
            let choice = try XCTUnwrap(try daemon.status().encoderChoice)
            print(
                """
                lab: busy start: \(choice.how.rawValue) \(choice.encoder); trials \
                \(choice.trials.map { "\($0.name) \($0.result.rawValue) \($0.ms) ms" }); recording \
                \(String(format: "%.1f", recordingAfter)) s after the start
                """
            )
            // Whether the trials time out depends on the load: run alone, both did (51.0 s to the recording); in make
            // test's lab, after the other tests, openh264's passed in 518 ms. Either way it records within the minute,
            // and a provisional choice comes only when every trial timed out (EncoderSelectionTests pins that logic).
            XCTAssertTrue([.provisional, .trial].contains(choice.how), "\(choice)")
            if choice.how == .provisional {
                XCTAssertTrue(
                    choice.trials.allSatisfy { $0.result == .timedOut || $0.result == .absent }, "\(choice.trials)")
            }
            // A board's minute, under TCG's emulated CPU: 51 s run alone, 59.8 s in a whole lab, 65.1 s as the first
            // test of a fresh guest (its GStreamer registry built meanwhile); a start that stalls (a trial without a
            // limit, a device call that never returns) goes past it.
            XCTAssertLessThan(recordingAfter, 75, "recording within 75 s of the start under the lab's emulated CPU")
            try daemon.waitUntilRecorded(2, timeout: 60)
            let clip = try daemon.recordStop()
            XCTAssertEqual(try MediaProbe(clip.path).decodeErrors(), "", clip.path)
            XCTAssertGreaterThan(clip.videoFrames, 0)
        }
    }
}
