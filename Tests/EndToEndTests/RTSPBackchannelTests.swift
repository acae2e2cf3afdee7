import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// ONVIF's audio output (issue 49): an RTSP client that asks for the backchannel (`Require:
/// www.onvif.org/ver20/backchannel`, as go2rtc and Profile T NVRs do) talks to the device's speaker. The client is
/// GStreamer's rtspsrc with `backchannel=onvif` (Tests/ONVIF/backchannel_client.py) sending a 1 kHz tone in G.711
/// µ-law; the speaker is a file sink read back. Meanwhile a plain client plays the shared stream, and a recording
/// keeps the device's microphone.
final class RTSPBackchannelTests: XCTestCase {
    private static let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("ONVIF/backchannel_client.py").path

    /// A daemon serving RTSP on loopback whose speaker writes raw 48 kHz mono to `output`.
    private static func daemon(speakingInto output: String, extra: String = "") throws -> DaemonProcess {
        try DaemonProcess(
            extra: extra + """
                [rtsp]
                listen = "127.0.0.1:0"
                [speaker]
                pipeline = "audio/x-raw,format=S16LE,rate=48000,channels=1 ! filesink location=\(output) append=true"
                """)
    }

    private func talk(_ url: String, seconds: Double, tone: Int = 1000) throws -> ProcessOutcome {
        try ProcessOutcome.run(
            "/usr/bin/python3", [Self.client, url, "--tone", "\(tone)", "--seconds", "\(seconds)"], timeout: 60)
    }

    func testAnRTSPClientTalksToTheSpeakerOverTheONVIFBackchannel() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "backchannel-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = folder + "/speaker.raw"
        let daemon = try Self.daemon(speakingInto: output, extra: "[video]\nwidth = 320\nheight = 240\n")
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            var url: String?
            XCTAssertTrue(
                daemon.waitFor(10) {
                    url = (try? daemon.status())?.rtsp?.url
                    return url != nil
                })
            let live = try XCTUnwrap(url)
            let events = try TypedEvents(daemon, timeout: 60)
            _ = try daemon.recordStart(title: "while a client talks")
            // A plain client on the shared media all along: the backchannel's media of its own must not take the
            // stream from it.
            let viewer = Process()
            viewer.executableURL = URL(fileURLWithPath: "/usr/bin/ffprobe")
            viewer.arguments = [
                "-v", "error", "-rtsp_transport", "tcp", "-count_frames", "-select_streams", "v:0", "-read_intervals",
                "%+8",
                "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", live,
            ]
            let viewerOut = Pipe()
            viewer.standardOutput = viewerOut
            viewer.standardError = FileHandle.nullDevice
            try viewer.run()

            let talked = try talk(live, seconds: 3)
            XCTAssertEqual(talked.status, 0, talked.stdout + talked.stderr)
            XCTAssertTrue(
                talked.stdout.contains("backchannel: stream"), "the server offered the backchannel: \(talked.stdout)")
            XCTAssertTrue(talked.stdout.contains("encoding-name=(string)PCMU"), talked.stdout)
            let end = try events.waitFor("the talk to end when the client left") { event -> SpeakerPlayback? in
                if case .speakerPlayed(let p) = event, p.sound == "talk" { return p }
                return nil
            }
            XCTAssertGreaterThan(end.playedMs, 2500)
            let heard = try SpeakerOutput(path: output)
            XCTAssertEqual(heard.pitch ?? 0, 1000, accuracy: 15, "the client's tone came out of the speaker")
            XCTAssertEqual(heard.soundingSeconds, 3.0, accuracy: 0.6, "for as long as the client sent it")

            // One talker at a time, the dashboard's Talk included: a second client's backchannel is not played.
            let before = try Data(contentsOf: URL(fileURLWithPath: output)).count
            let first = Process()
            first.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
            first.arguments = [Self.client, live, "--tone", "1000", "--seconds", "4"]
            first.standardOutput = FileHandle.nullDevice
            first.standardError = FileHandle.nullDevice
            try first.run()
            XCTAssertTrue(
                daemon.waitFor(20) { (try? daemon.status().speaker?.state) == .talking }, "the first client talks")
            let second = try talk(live, seconds: 1.5, tone: 600)
            XCTAssertEqual(second.status, 0, second.stdout + second.stderr)
            XCTAssertTrue(
                daemon.log.contains("a client's backchannel is not played: someone else is talking"), daemon.log)
            first.waitUntilExit()
            let both = try SpeakerOutput(path: output, from: before)
            XCTAssertEqual(both.pitch ?? 0, 1000, accuracy: 15, "only the first client is heard")

            viewer.waitUntilExit()
            let frames =
                Int(
                    String(decoding: viewerOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                        .trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            XCTAssertGreaterThan(
                frames, 150, "the plain client kept getting the picture (8 s at 30 fps) while the other talked")
            let clip = try daemon.recordStop()
            let sound = try ClipSound.samples(clip.path, from: 1, duration: 2)
            XCTAssertEqual(
                ClipSound.pitch(sound) ?? 0, 440, accuracy: 20, "the recording's sound is the device's microphone")
            XCTAssertEqual(try daemon.status().speaker?.state, .idle)
        }
    }

    /// The speaker is an admin's, over RTSP as in the dashboard: a viewer account's request for the backchannel is
    /// refused (403; its plain stream stays open to it), an admin's is played.
    func testOnlyAnAdminTalksOverTheBackchannel() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "backchannel-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let output = folder + "/speaker.raw"
        let daemon = try Self.daemon(speakingInto: output)
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertEqual(
                try daemon.ctl(["user", "add", "anna", "--role", "admin"], input: "annas-password-1\n").status, 0)
            XCTAssertEqual(
                try daemon.ctl(["user", "add", "vic", "--role", "viewer"], input: "vics-password-1\n").status, 0)
            var url: String?
            XCTAssertTrue(
                daemon.waitFor(10) {
                    url = (try? daemon.status())?.rtsp?.url
                    return url != nil && (try? daemon.status().rtsp?.authentication) == "digest"
                })
            let live = try XCTUnwrap(url)
            for (name, password) in [("vic", "vics-password-1"), ("anna", "annas-password-1")] {
                try (password + "\n").write(toFile: folder + "/\(name).password", atomically: true, encoding: .utf8)
            }
            let viewer = try ProcessOutcome.run(
                "/usr/bin/python3",
                [
                    Self.client, live, "--user", "vic", "--password-file", folder + "/vic.password",
                    "--seconds", "1",
                ], timeout: 60)
            XCTAssertNotEqual(viewer.status, 0, "a viewer's backchannel: \(viewer.stdout)")
            XCTAssertFalse(
                viewer.stdout.contains("backchannel:"), "no backchannel offered to a viewer: \(viewer.stdout)")
            XCTAssertTrue(viewer.stdout.contains("sent: 0 buffers"), viewer.stdout + viewer.stderr)
            XCTAssertNotEqual(try daemon.status().speaker?.state, .talking)
            let probe = try ProcessOutcome.run(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-rtsp_transport", "tcp", "-show_entries", "stream=codec_name",
                    "-of", "compact", live.replacingOccurrences(of: "rtsp://", with: "rtsp://vic:vics-password-1@"),
                ],
                timeout: 60)
            XCTAssertEqual(probe.status, 0, "the viewer still watches: \(probe.stderr)")
            let admin = try ProcessOutcome.run(
                "/usr/bin/python3",
                [
                    Self.client, live, "--user", "anna", "--password-file", folder + "/anna.password",
                    "--seconds", "2",
                ], timeout: 60)
            XCTAssertEqual(admin.status, 0, admin.stdout + admin.stderr)
            XCTAssertTrue(admin.stdout.contains("backchannel:"), admin.stdout)
            let heard = try SpeakerOutput(path: output)
            XCTAssertEqual(heard.pitch ?? 0, 1000, accuracy: 15, "the admin's tone came out of the speaker")
        }
    }
}
