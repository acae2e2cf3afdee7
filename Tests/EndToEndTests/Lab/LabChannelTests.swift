import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Two real V4L2 cameras (two vivid instances) recorded as two channels side by side: both clips cover the same
/// time, each at its channel's size, with its own camera's moving picture in every frame (never the filler); each
/// channel's motion detection sees its own camera's picture move, and the control socket answers throughout. One
/// sound card (snd-aloop) is recorded by both channels: the first opens it and hands the second what it hears.
final class LabChannelTests: XCTestCase {
    /// Motion on; the echo canceller (on by default with a speaker and a sound card, as the lab has) off: it is
    /// not what this test is about, and on the guest's CPU it made the card drop sound.
    private static let detectionAndSound = "\n[motion]\nenabled = true\n[speaker]\necho_cancel = \"off\"\n"

    func testTwoCamerasRecordedAsTwoChannels() throws {
        try Lab.require()
        let nodes = try Lab.vividNodes(count: 2)
        for node in nodes { try Lab.moveVividPicture(node) }
        let player = try LabAudioTests.startTone()
        defer {
            player.terminate()
            player.waitUntilExit()
        }
        let daemon = try DaemonProcess(
            extra: LabCameraTests.config(width: 320, height: 180, framerate: 10) + Self.detectionAndSound,
            cameras: """
                [[camera]]
                name = "road"
                source = "v4l2"
                device = "\(nodes[0])"
                [[camera]]
                name = "cabin"
                source = "v4l2"
                device = "\(nodes[1])"
                [[channel]]
                name = "front"
                cameras = ["road"]
                [[channel]]
                name = "rear"
                cameras = ["cabin"]
                width = 640
                height = 360
                audio = true
                """, root: Lab.scratch)
        try LabAudioTests.hearLoopback(daemon)
        let began = Date()
        try daemon.start(timeout: 180)
        print("lab: daemon up in \(Int(Date().timeIntervalSince(began))) s")
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            _ = try daemon.recordStart(title: "two channels")
            try daemon.waitUntilRecorded(4)
            let ids = try daemon.status().channels.compactMap(\.recordingId)
            XCTAssertEqual(ids.count, 2, "both channels record")
            // Both pictures move from their first frame: each channel's own detector finds motion.
            // Up to 55 s in the lab after LabBusyStartTests (the guest's emulated CPU busy with its trials): a
            // generous wait, since when motion comes is not what this test measures.
            let moved = try daemon.waitFor(150) {
                try daemon.status().channels.allSatisfy { ($0.motion?.events ?? 0) > 0 }
            }
            let motion = try daemon.status().channels.map { "\($0.name): \($0.motion.map { "\($0)" } ?? "none")" }
            print("lab: channel motion at \(Int(Date().timeIntervalSince(began))) s: \(motion)")
            XCTAssertTrue(moved, "each channel's motion: \(motion)")
            _ = try daemon.recordStop()
            var clips: [String: Recording] = [:]
            for id in ids {
                // The command returns once every channel's clip is finished.
                let recording = try daemon.info(id).recording
                XCTAssertEqual(recording.state, .complete, id)
                clips[recording.channel ?? "?"] = recording
            }
            let sizes = ["front": (320, 180), "rear": (640, 360)]
            for (channel, (width, height)) in sizes {
                let clip = try XCTUnwrap(clips[channel], "\(channel)'s clip")
                let probe = try MediaProbe(clip.path)
                XCTAssertEqual(probe.video?.width, width, channel)
                XCTAssertEqual(try probe.decodeErrors(), "", channel)
                let frames = try DecodedFrames(clip.path, width: width, height: height, scaledTo: (160, 90))
                let camera = clip.camera ?? "?"
                print("lab: channel \(channel): \(frames.frames.count) frames at \(width)x\(height), camera \(camera)")
                XCTAssertGreaterThanOrEqual(frames.frames.count, 25, "\(channel): frames in 4 s at 10 fps")
                XCTAssertEqual(frames.flatFrames, [], "\(channel): frames showing the filler instead of the camera")
                // The tone's power against a frequency it has none of: a few samples the loaded guest dropped
                // leave it far above (a zero-crossing pitch read 750–900 Hz then), silence or another sound do not.
                let sound = try ClipSound.samples(clip.path, from: 1, duration: 2)
                let ratio = ClipSound.power(of: LabAudioTests.tone, in: sound) / ClipSound.power(of: 600, in: sound)
                print("lab: channel \(channel): sound RMS \(ClipSound.rms(sound)), the tone \(ratio) x 600 Hz")
                XCTAssertGreaterThan(ClipSound.rms(sound), 0.01, "\(channel): the card's sound")
                XCTAssertGreaterThan(ratio, 100, "\(channel): the card's tone")
            }
            XCTAssertEqual(clips["front"]?.camera, "road")
            XCTAssertEqual(clips["rear"]?.camera, "cabin")
            let (front, rear) = (try XCTUnwrap(clips["front"]), try XCTUnwrap(clips["rear"]))
            XCTAssertLessThan(
                abs(front.createdAt.timeIntervalSince(rear.createdAt)), 2, "the two clips began together")
        }
    }
}
