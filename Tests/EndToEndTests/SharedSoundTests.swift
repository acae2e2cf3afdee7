import ApplianceProtocol
import Foundation
import XCTest

/// One microphone recorded by two channels (a dashcam's cabin microphone in the road's and the cabin's clips): the
/// first channel opens it and hands what it hears to the second, whose own microphone is only a silence the
/// handed sound is mixed onto. The test tone in the second channel's clip is the first's sound.
final class SharedSoundTests: XCTestCase {
    func testTwoChannelsRecordTheOneMicrophone() throws {
        let daemon = try DaemonProcess(
            cameras: """
                [[camera]]
                name = "road"
                source = "test"
                [[camera]]
                name = "cabin"
                source = "test"
                pattern = "ball"
                """ + FrontAndRear.channels(front: "road", rear: "cabin") + "\naudio = true\n")
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            _ = try daemon.recordStart()
            try daemon.waitUntilRecorded(4)
            let ids = try daemon.status().channels.compactMap(\.recordingId)
            XCTAssertEqual(ids.count, 2, "both channels record")
            _ = try daemon.recordStop()
            for id in ids {
                let clip = try daemon.info(id).recording
                let probe = try MediaProbe(clip.path)
                let (video, audio) = (try XCTUnwrap(probe.video), try XCTUnwrap(probe.audio, "\(id): its sound"))
                XCTAssertEqual(audio.duration, video.duration, accuracy: 0.3, "\(clip.channel ?? "front")")
                let middle = try ClipSound.samples(clip.path, from: 1, duration: 2)
                let pitch = try XCTUnwrap(ClipSound.pitch(middle), "\(clip.channel ?? "front"): silence")
                XCTAssertEqual(pitch, 440, accuracy: 10, "\(clip.channel ?? "front"): the microphone's tone")
            }
        }
    }
}
