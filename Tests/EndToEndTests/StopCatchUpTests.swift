import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// A stop waits for a stream that is still catching up. On a busy CPU the sound reaches the recording seconds
/// behind the picture (seen in the lab's emulated VM: the AAC encoder's queue held 1 to 2 s); a stop that ended the
/// streams after a fixed 2 s cut that sound off. Here the microphone's fragment holds 3 s of sound in a queue
/// before it lets any through, so every buffer arrives 3 s late, as from a backlog.
final class StopCatchUpTests: XCTestCase {
    func testAStopWaitsForSoundThatIsStillComing() throws {
        let daemon = try DaemonProcess()
        let pipelines = try EncoderChoiceTests.ownPipelines(
            for: daemon,
            [
                "sources/audio-test.gst": """
                audiotestsrc is-live=true wave=sine freq=440 volume=0.2 ! queue min-threshold-time=3000000000 \
                max-size-time=10000000000 max-size-buffers=0 max-size-bytes=0
                """
            ])
        let config =
            "pipelines_dir = \"\(pipelines)\"\n"
            + DaemonProcess.config(
                dataDir: daemon.dataDir,
                extra: """
                    [video]
                    width = 320
                    height = 240
                    """)
        try config.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        try daemon.start(timeout: 90)
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {

            _ = try daemon.recordStart(title: "late sound")
            try daemon.waitUntilRecorded(6)
            let clip = try daemon.recordStop()

            // The sound of the clip's whole length came, 3 s after its picture.
            let audioMs = try XCTUnwrap(clip.audioDurationMs, "the clip has sound")
            XCTAssertEqual(
                Double(audioMs), Double(clip.durationMs), accuracy: 100, "the sound lasts as long as the picture")
            XCTAssertFalse(daemon.log.contains("streams stopped flowing"), "a stream still flowing was not cut")
            XCTAssertGreaterThan(try XCTUnwrap(clip.stopLatencyMs), 2_000, "the stop waited for the late sound")

            let probe = try MediaProbe(clip.path)
            let (video, audio) = (try XCTUnwrap(probe.video), try XCTUnwrap(probe.audio))
            XCTAssertEqual(audio.duration, video.duration, accuracy: 0.1, "in the file too")
            XCTAssertEqual(try probe.decodeErrors(), "")
        }
    }
}
