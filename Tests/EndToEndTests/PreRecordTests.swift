import ApplianceProtocol
import Foundation
import TestSupport
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
        let video = try XCTUnwrap(probe.video)
        let audio = try XCTUnwrap(probe.audio)
        // 2 s window + 1 s, less up to one keyframe interval to reach a keyframe.
        XCTAssertGreaterThanOrEqual(video.duration, 1.9)
        XCTAssertLessThanOrEqual(video.duration, 3.2)
        XCTAssertLessThan(abs(audio.startTime - video.startTime), 0.040)
        XCTAssertEqual(audio.duration, video.duration, accuracy: 0.1)
        try probe.assertSmoothVideo(framerate: 30)
        XCTAssertEqual(try probe.decodeErrors(), "")
        // The row's start is the file's first frame: the window before the request, less up to a keyframe interval.
        let row = try daemon.info(first.id).recording
        let preRoll = row.createdAt.timeIntervalSince(try XCTUnwrap(row.startedAt))
        XCTAssertTrue((0.9...2.1).contains(preRoll), "first frame \(preRoll) s before the request")

        // The windows are held again after a recording: the next clip works the same way.
        try daemon.waitForFrames(seconds: 2.5, since: framesAtStop)
        let started = try daemon.recordStart()
        try daemon.waitUntilElapsed(1.0)
        // Written while it records (what a crash leaves behind for recovery and for the activity's clip).
        XCTAssertTrue(
            try Poll.until(timeout: 10) {
                let row = try daemon.info(started.id).recording
                return row.startedAt.map { row.createdAt.timeIntervalSince($0) >= 0.9 } ?? false
            }, "the recording's row holds its first frame's time before it stops")
        let second = try daemon.recordStop()
        let next = try MediaProbe(second.path)
        XCTAssertGreaterThanOrEqual(try XCTUnwrap(next.video).duration, 1.9)
        XCTAssertLessThan(abs(try XCTUnwrap(next.audio).startTime - next.video!.startTime), 0.040)
        XCTAssertEqual(try next.decodeErrors(), "")
        try next.assertSmoothVideo(framerate: 30)
    }
}
