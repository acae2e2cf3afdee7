import ApplianceProtocol
import Foundation
import XCTest

/// `pre_record_s`: a clip includes what happened before `record start`, from a keyframe.
final class PreRecordTests: XCTestCase {
    func testClipStartsBeforeTheRequest() throws {
        let daemon = try DaemonProcess(extra: "[recording]\npre_record_s = 2.0")
        try daemon.start()
        defer { daemon.stop() }
        try daemon.waitForFrames(seconds: 3.5)  // the window fills
        _ = try daemon.recordStart()
        try daemon.waitUntilElapsed(1.0)
        let first = try daemon.recordStop()
        let framesAtStop = try daemon.status().output.frames
        let probe = try MediaProbe(first.path)
        let video = try XCTUnwrap(probe.video), audio = try XCTUnwrap(probe.audio)
        // 2 s window + 1 s, less up to one keyframe interval to reach a keyframe.
        XCTAssertGreaterThanOrEqual(video.duration, 1.9)
        XCTAssertLessThanOrEqual(video.duration, 3.2)
        XCTAssertLessThan(abs(audio.startTime - video.startTime), 0.040)
        XCTAssertEqual(audio.duration, video.duration, accuracy: 0.1)
        try probe.assertSmoothVideo(framerate: 30)
        XCTAssertEqual(try probe.decodeErrors(), "")

        // The windows are held again after a recording: the next clip works the same way.
        try daemon.waitForFrames(seconds: 2.5, since: framesAtStop)
        _ = try daemon.recordStart()
        try daemon.waitUntilElapsed(1.0)
        let second = try daemon.recordStop()
        let next = try MediaProbe(second.path)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(next.video).duration, 1.9)
        XCTAssertLessThan(abs(try XCTUnwrap(next.audio).startTime - next.video!.startTime), 0.040)
        XCTAssertEqual(try next.decodeErrors(), "")
        try next.assertSmoothVideo(framerate: 30)
    }
}
