import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
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
        let daemon = try DaemonProcess(
            extra: "[video]\nwidth = 320\nheight = 240\n[motion]\nenabled = true\n", cameras: Self.cameras)
        try daemon.start()
        defer { daemon.stop() }
        let listener = try EventListener(daemon, timeout: 30)
        let typed = try TypedEvents(daemon, timeout: 30)

        XCTAssertTrue(
            try daemon.waitFor(20) { (try daemon.status().motion?.framesAnalysed ?? 0) >= 15 }, "frames are looked at")
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
        try checkTheActivityRecord(daemon, typed, startedAt: startedAt)
    }

    /// The event is a stored activity: announced when it ended, listed by `ctl activity`, with the ball's picture.
    private func checkTheActivityRecord(_ daemon: DaemonProcess, _ typed: TypedEvents, startedAt: Date) throws {
        let activity = try typed.waitFor("the motion's activity") { event -> Activity? in
            if case .activity(let a) = event, a.kind == .motion { return a }
            return nil
        }
        XCTAssertEqual(activity.camera, "ball")
        XCTAssertEqual(activity.startedAt.timeIntervalSince1970, startedAt.timeIntervalSince1970, accuracy: 0.002)
        XCTAssertNotNil(activity.endedAt)
        XCTAssertGreaterThan(activity.peak ?? 0, 0)
        // The picture is the ball's camera (a white ball on black), not the still black one: some pixels are bright.
        let picture = try XCTUnwrap(activity.thumbnail, "a picture of the motion")
        let gray = try ProcessOutcome.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", picture, "-f", "rawvideo", "-pix_fmt", "gray", "-"])
        XCTAssertEqual(gray.status, 0, gray.stderr)
        XCTAssertGreaterThan(gray.stdoutData.filter { $0 > 128 }.count, 20, "the ball is in the picture")

        let text = try daemon.ctl(["activity", "--kind", "motion"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertTrue(
            text.stdout.contains("\(activity.id)") && text.stdout.contains("ball")
                && text.stdout.contains("% of the frame"), text.stdout)
        let shown = try daemon.ctl(["activity", "show", "\(activity.id)", "--json"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let detail = try WireFormat.decoder.decode(ActivityDetail.self, from: Data(shown.stdout.utf8))
        XCTAssertEqual([detail.activity.id], [activity.id])
        XCTAssertEqual(detail.activity.thumbnail, activity.thumbnail)
        XCTAssertEqual(
            detail.activity.endedAt?.timeIntervalSince1970 ?? 0, activity.endedAt?.timeIntervalSince1970 ?? 1,
            accuracy: 0.0015)
        let missing = try daemon.ctl(["activity", "show", "99999"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertEqual(
            missing.stderr.trimmingCharacters(in: .whitespacesAndNewlines),
            "appliance: no activity with number 99999 (not_found)")
        let badDay = try daemon.ctl(["activity", "--day", "yesterday"])
        XCTAssertEqual(badDay.status, 1)
        XCTAssertTrue(badDay.stderr.contains("args.day must be a day such as 2026-11-26"), badDay.stderr)
    }
}

/// `[recording] trigger = "motion"`: the ball starts a recording with its pre-roll, the still picture ends it after
/// the post-roll, and the clip decodes; a still picture records nothing.
final class MotionTriggerTests: XCTestCase {
    func testMotionRecordsAClipFromPreRollToPostRoll() throws {
        let extra =
            "[video]\nwidth = 320\nheight = 240\n[motion]\nenabled = true\n"
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
        try daemon.waitUntilElapsed(1.5)  // some motion on record (after the pre-roll)
        _ = try daemon.switchCamera(.named("still"))
        let ended = try listener.waitFor("motion_ended")
        let stopped = try listener.waitFor("recording_stopped")
        let path = try XCTUnwrap(stopped["path"] as? String)
        let duration = try XCTUnwrap(stopped["duration_ms"] as? Int)
        // The clip runs from before the motion began (the pre-roll, from its first keyframe) to post_record_s after
        // the motion's last frame.
        let motionStart = try XCTUnwrap(Timestamps.date(iso: ended["started_at"] as? String ?? ""))
        let motionEnd = try XCTUnwrap(Timestamps.date(iso: ended["ended_at"] as? String ?? ""))
        let clipEnd = try XCTUnwrap(Timestamps.date(iso: stopped["ended_at"] as? String ?? ""))
        let clipStart = clipEnd.addingTimeInterval(-Double(duration) / 1000)
        // The pre-roll starts at the first keyframe at or after (request - pre_record_s), and the request comes
        // min_duration_s (0.5 s) and the event's way after the motion began: with 1 s of pre-roll and a keyframe a
        // second the clip starts within a second of it (measured: 0.64 s after, three runs).
        XCTAssertLessThan(
            clipStart.timeIntervalSince(motionStart), 1.0, "the pre-roll reaches back towards the motion's start")
        XCTAssertEqual(clipEnd.timeIntervalSince(motionEnd), 1, accuracy: 0.6, "1 s of post-roll after the last motion")
        XCTAssertEqual(try MediaProbe(path).decodeErrors(), "")
        XCTAssertEqual(try daemon.status().state, .idle)
        // The clip covers the motion's activity.
        guard case .activity(let list) = try daemon.perform(.activity(ActivityFilter(kinds: [.motion]))),
            let motion = list.items.first
        else { return XCTFail("no motion activity") }
        guard case .activityDetail(let detail) = try daemon.perform(.activityShow(id: motion.id)) else {
            return XCTFail()
        }
        XCTAssertEqual(detail.recordings.map(\.id), [try XCTUnwrap(stopped["id"] as? String)])
    }
}
