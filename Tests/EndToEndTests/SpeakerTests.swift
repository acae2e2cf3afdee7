import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// The speaker (issue 49): `ctl play` of a file and of a chime, through a real GStreamer sink (`[speaker] pipeline`
/// writing raw 48 kHz mono to a file the test reads back); a file that is not sound and a speaker that cannot play
/// are one line each and leave the recording whole; feedback chimes on record start and stop.
final class SpeakerTests: XCTestCase {
    private var folder = ""

    override func setUpWithError() throws {
        folder =
            FileManager.default.temporaryDirectory.appendingPathComponent("speaker-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: folder) }

    /// What the speaker played, appended as raw audio to `output`.
    private func speaker(_ output: String, feedback: Bool = false) -> String {
        """
        [speaker]
        pipeline = "audio/x-raw,format=S16LE,rate=48000,channels=1 ! filesink location=\(output) append=true"
        feedback = \(feedback)
        """
    }

    private func tone(hz: Int, seconds: Double) throws -> String {
        let path = folder + "/tone-\(hz).wav"
        let made = try ProcessOutcome.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "lavfi", "-i", "sine=frequency=\(hz):duration=\(seconds):sample_rate=44100",
                "-ac", "1", path,
            ], timeout: 60)
        XCTAssertEqual(made.status, 0, made.stderr)
        return path
    }

    func testAFileAndAChimePlayOnTheSpeakerAndBadFilesAreOneLine() throws {
        let output = folder + "/speaker.raw"
        let daemon = try DaemonProcess(extra: speaker(output))
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            let events = try TypedEvents(daemon, timeout: 30)
            _ = try daemon.recordStart(title: "while it speaks")
            let played = try daemon.ctl(["play", try tone(hz: 1000, seconds: 1.5)])
            XCTAssertEqual(played.status, 0, played.stderr)
            XCTAssertTrue(played.stdout.contains("(1.5 s) on audio/x-raw"), played.stdout)
            let end = try events.waitFor("the tone's end") { event -> SpeakerPlayback? in
                if case .speakerPlayed(let p) = event, p.sound.hasSuffix("tone-1000.wav") { return p }
                return nil
            }
            XCTAssertFalse(end.interrupted)
            let heard = try SpeakerOutput(path: output)
            XCTAssertEqual(heard.pitch ?? 0, 1000, accuracy: 10, "the file's tone came out of the speaker")
            XCTAssertEqual(heard.soundingSeconds, 1.5, accuracy: 0.1, "for as long as the file")

            let chime = try daemon.ctl(["play", "--chime", "chime"])
            XCTAssertEqual(chime.status, 0, chime.stderr)
            try events.waitFor("the chime's end") { event -> Bool? in
                if case .speakerPlayed(let p) = event, p.sound == "chime", !p.interrupted { return true }
                return nil
            }
            XCTAssertGreaterThan(
                try SpeakerOutput(path: output).soundingSeconds, 2.2, "the chime (0.9 s) came after the tone")

            // Bad input: one line each, a non-zero exit, the daemon and the recording untouched.
            let noise = folder + "/not-sound.wav"
            try Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) }).write(to: URL(fileURLWithPath: noise))
            for (arguments, says) in [
                (["play", noise], "cannot play \(noise)"), (["play", folder + "/missing.ogg"], "no such file"),
                (["play", folder], "is a folder"), (["play", "--chime", "trumpet"], "no chime named 'trumpet'"),
            ] {
                let refused = try daemon.ctl(arguments)
                XCTAssertNotEqual(refused.status, 0, "\(arguments)")
                XCTAssertTrue(refused.stderr.contains(says), "\(arguments): \(refused.stderr)")
                XCTAssertEqual(
                    refused.stderr.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: "\n").count, 1,
                    refused.stderr)
            }
            let status = try daemon.status()
            XCTAssertEqual(status.speaker?.state, .idle)
            XCTAssertEqual(status.speaker?.played, 2)
            XCTAssertEqual(status.state, .recording)
            try daemon.waitForMoreVideo(1)
            let clip = try daemon.recordStop()
            try ClipPicture.assertDecodes(clip.path)
            let sound = try ClipSound.samples(clip.path, from: 0.5, duration: 2)
            XCTAssertEqual(
                ClipSound.pitch(sound) ?? 0, 440, accuracy: 15,
                "the recording's sound stays the microphone's (the test tone)")
        }
    }

    func testASpeakerThatCannotPlayIsALineAndAnEventAndNothingElse() throws {
        let daemon = try DaemonProcess(extra: "[speaker]\ndevice = \"hw:CARD=NoSuchCard,DEV=0\"\n")
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            let events = try TypedEvents(daemon, timeout: 30)
            _ = try daemon.recordStart()
            let refused = try daemon.ctl(["play", "--chime", "chime"])
            XCTAssertNotEqual(refused.status, 0)
            XCTAssertTrue(
                refused.stderr.contains("the speaker (alsa hw:CARD=NoSuchCard,DEV=0) cannot play"), refused.stderr)
            let failure = try events.waitFor("speaker_failed") { event -> SpeakerFailure? in
                if case .speakerFailed(let f) = event { return f }
                return nil
            }
            XCTAssertEqual(failure.sound, "chime")
            let status = try daemon.status()
            XCTAssertEqual(status.speaker?.state, .error)
            XCTAssertNotNil(status.speaker?.error)
            XCTAssertEqual(status.state, .recording, "the recording goes on")
            XCTAssertTrue(status.ready)
            try daemon.waitForMoreVideo(1)
            try ClipPicture.assertDecodes(try daemon.recordStop().path)
        }
        let silent = try DaemonProcess(extra: "[speaker]\ndevice = \"none\"\n")
        try silent.start()
        defer { silent.stop() }
        let none = try silent.ctl(["play", "--chime", "chime"])
        XCTAssertNotEqual(none.status, 0)
        XCTAssertTrue(none.stderr.contains("there is no speaker"), none.stderr)
        XCTAssertNil(try silent.status().speaker)
    }

    func testFeedbackChimesSayARecordingStartedAndStopped() throws {
        let output = folder + "/feedback.raw"
        let daemon = try DaemonProcess(extra: speaker(output, feedback: true))
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            let events = try TypedEvents(daemon, timeout: 30)
            _ = try daemon.recordStart()
            try events.waitFor("the start chime") { event -> Bool? in
                if case .speakerPlayed(let p) = event, p.sound == "recording-started" { return true }
                return nil
            }
            let started = try SpeakerOutput(path: output)
            XCTAssertGreaterThan(started.soundingSeconds, 0.2, "the start chime played")
            XCTAssertEqual(started.firstPitch(ms: 100) ?? 0, 659, accuracy: 20, "it begins on the lower note (rising)")
            _ = try daemon.recordStop()
            try events.waitFor("the stop chime") { event -> Bool? in
                if case .speakerPlayed(let p) = event, p.sound == "recording-stopped" { return true }
                return nil
            }
            XCTAssertGreaterThan(try SpeakerOutput(path: output).soundingSeconds, started.soundingSeconds + 0.2)
        }
    }
}

/// What a `[speaker] pipeline` wrote: raw S16LE mono at 48 kHz, appended sound after sound.
struct SpeakerOutput {
    let samples: [Double]
    static let rate = 48_000

    /// `from`: the byte where the part wanted starts (what was played before it is left out).
    init(path: String, from: Int = 0) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path)).dropFirst(from)
        samples = data.withUnsafeBytes { raw in
            raw.bindMemory(to: Int16.self).map { Double(Int16(littleEndian: $0)) / 32768 }
        }
    }

    /// 10 ms windows with sound in them (RMS above -30 dBFS), in seconds.
    var soundingSeconds: Double {
        let window = Self.rate / 100
        return Double(
            stride(from: 0, to: samples.count - window, by: window).filter {
                ClipSound.rms(Array(samples[$0..<$0 + window])) > 0.03
            }.count) / 100
    }

    /// The pitch of everything that sounds.
    var pitch: Double? {
        let window = Self.rate / 100
        let sounding = stride(from: 0, to: samples.count - window, by: window).filter {
            ClipSound.rms(Array(samples[$0..<$0 + window])) > 0.03
        }
        return Self.pitch(sounding.flatMap { samples[$0..<$0 + window] })
    }

    /// The pitch of the first `ms` that sound.
    func firstPitch(ms: Int) -> Double? {
        guard let start = samples.firstIndex(where: { abs($0) > 0.05 }) else { return nil }
        return Self.pitch(Array(samples[start..<min(samples.count, start + Self.rate * ms / 1000)]))
    }

    private static func pitch(_ part: [Double]) -> Double? {
        guard part.count > 1 else { return nil }
        var crossings = 0
        for index in 1..<part.count where (part[index - 1] < 0) != (part[index] < 0) { crossings += 1 }
        return Double(crossings) / 2 / (Double(part.count) / Double(rate))
    }
}
