import ApplianceProtocol
import Foundation
import XCTest

/// Motion detection in the daemon, on the live graph's motion branch: a still picture is looked at and is no motion,
/// a moving ball is (`motion_started` with its camera and a score, status and metrics say so), and switching away
/// ends the event (`motion_ended`).
final class MotionTests: XCTestCase {
    static let cameras = """
        [[camera]]
        name = "still"
        source = "test"
        pattern = "black"
        [[camera]]
        name = "ball"
        source = "test"
        pattern = "ball"
        """

    func testAMovingBallIsMotionAStillPictureIsNotAndASwitchEndsTheEvent() throws {
        // 320x240: videotestsrc's ball (40 px across) is 20 px on the 160-wide motion frames.
        let daemon = try DaemonProcess(extra: "[video]\nwidth = 320\nheight = 240\n[motion]\nenabled = true\n", cameras: Self.cameras)
        try daemon.start()
        defer { daemon.stop() }
        let listener = try EventListener(daemon, timeout: 30)

        XCTAssertTrue(try daemon.waitFor(20) { (try daemon.status().motion?.framesAnalysed ?? 0) >= 15 }, "frames are looked at")
        let still = try XCTUnwrap(try daemon.status().motion)
        XCTAssertEqual([still.fps, still.width, still.height], [5, 160, 120])
        XCTAssertEqual(still.events, 0, "a still picture is no motion")
        XCTAssertFalse(still.active)

        let switched = Date()
        _ = try daemon.switchCamera(.named("ball"))
        let started = try listener.waitFor("motion_started")
        XCTAssertEqual(started["camera"] as? String, "ball")
        XCTAssertGreaterThan(started["peak_score"] as? Double ?? 0, 0)
        let startedAt = try XCTUnwrap(Timestamps.date(iso: started["started_at"] as? String ?? ""))
        XCTAssertGreaterThan(startedAt.timeIntervalSince(switched), -0.5, "the motion began after the switch")
        XCTAssertLessThan(Date().timeIntervalSince(switched), 10)
        XCTAssertTrue(try daemon.waitFor(5) { try daemon.metrics()["appliance_motion_active"]?.value() == 1 })
        XCTAssertEqual(try daemon.metrics()["appliance_events_total"]?.value(["kind": "motion"]), 1)
        XCTAssertEqual(try daemon.status().motion?.active, true)

        _ = try daemon.switchCamera(.named("still"))
        let ended = try listener.waitFor("motion_ended")
        XCTAssertEqual(ended["camera"] as? String, "ball")
        XCTAssertNotNil(ended["ended_at"] as? String)
        XCTAssertTrue(try daemon.waitFor(5) { try daemon.status().motion?.active == false })
    }
}

/// `[recording] trigger = "motion"`: the ball starts a recording with its pre-roll, the still picture ends it after
/// the post-roll, and the clip decodes; a still picture records nothing.
final class MotionTriggerTests: XCTestCase {
    func testMotionRecordsAClipFromPreRollToPostRoll() throws {
        let extra = "[video]\nwidth = 320\nheight = 240\n[motion]\nenabled = true\n"
            + "[recording]\ntrigger = \"motion\"\npre_record_s = 1\npost_record_s = 1\nevent_gap_s = 0\n"
        let daemon = try DaemonProcess(extra: extra, cameras: MotionTests.cameras)
        try daemon.start()
        defer { daemon.stop() }
        let listener = try EventListener(daemon, timeout: 30)
        XCTAssertTrue(try daemon.waitFor(20) { (try daemon.status().motion?.framesAnalysed ?? 0) >= 10 })
        XCTAssertEqual(try daemon.status().state, .idle, "a still picture records nothing")

        _ = try daemon.switchCamera(.named("ball"))
        try listener.waitFor("motion_started")
        try listener.waitFor("recording_started")
        Thread.sleep(forTimeInterval: 1.5)  // some motion on record
        _ = try daemon.switchCamera(.named("still"))
        try listener.waitFor("motion_ended")
        let stopped = try listener.waitFor("recording_stopped")
        let path = try XCTUnwrap(stopped["path"] as? String)
        let duration = try XCTUnwrap(stopped["duration_ms"] as? Int)
        XCTAssertGreaterThan(duration, 2500, "1 s of pre-roll, the motion, 1 s of post-roll")
        XCTAssertEqual(try MediaProbe(path).decodeErrors(), "")
        XCTAssertEqual(try daemon.status().state, .idle)
    }
}
