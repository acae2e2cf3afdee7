import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Issue 59: no event without its clip. Motion (the ball camera) leaves and comes back at every offset around the
/// end of the recording's tail, in 0.25 s steps from post-roll − 1 s to post-roll + 2 s after the last motion. Some
/// returns come while the clip before is still recording (it goes on), some while it is being finalised (the next
/// clip waits for the finaliser and continues from the frame after its end, held in the pre-record window), some
/// after. Every motion activity must start inside a clip, which `activity` names, and every clip must decode.
final class EventCoverageTests: XCTestCase {
    /// Longer than motion's release (2 s): the tail ends `postRollS` after the last motion, after the end is known.
    static let postRollS = 3.0

    func testEveryReturnAroundTheEndOfThePostRollHasAClipCoveringItsStart() throws {
        let extra =
            "[video]\nwidth = 320\nheight = 240\n[motion]\nenabled = true\n"
                + """
                [recording]\ntrigger = \"motion\"\npre_record_s = 2\npost_record_s = \(Self.postRollS)\nevent_gap_s = \
                0\n
                """
        let daemon = try DaemonProcess(extra: extra, cameras: MotionTests.cameras)
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            let listener = try EventListener(daemon, timeout: 30)
            XCTAssertTrue(try daemon.waitFor(20) { (try daemon.status().motion?.framesAnalysed ?? 0) >= 10 })
            let gaps = Array(stride(from: Self.postRollS - 1, through: Self.postRollS + 2, by: 0.25))
            var lastMotion = try motion(daemon, listener)
            for gap in gaps {
                // The ball comes back `gap` after the last motion (at once if that has passed).
                Thread.sleep(forTimeInterval: max(0, lastMotion.addingTimeInterval(gap).timeIntervalSinceNow))
                lastMotion = try motion(daemon, listener)
            }
            // The last tail ends: nothing records.
            XCTAssertTrue(try daemon.waitFor(Self.postRollS + 15) { try daemon.status().state == .idle })
            try assertEveryMotionIsCovered(daemon, count: gaps.count + 1)
        }
    }

    /// The ball until motion has started, then the still picture until it has ended: when the motion was last seen.
    private func motion(_ daemon: DaemonProcess, _ listener: EventListener) throws -> Date {
        _ = try daemon.switchCamera(.named("ball"))
        _ = try listener.waitFor("motion_started")
        _ = try daemon.switchCamera(.named("still"))
        let ended = try listener.waitFor("motion_ended")
        return try XCTUnwrap(Timestamps.date(iso: ended["ended_at"] as? String ?? ""))
    }

    /// A clip's span as its file has it: "created … first frame … end".
    static func span(_ clip: Recording) -> String {
        let end = clip.endedAt
        let first = end.map { $0.addingTimeInterval(-Double(clip.durationMs ?? 0) / 1000) }
        return
            """
            [\(Timestamps.iso(clip.createdAt)) first \(first.map(Timestamps.iso) ?? "-") end \
            \(end.map(Timestamps.iso) ?? "-")]
            """
    }

    private func assertEveryMotionIsCovered(_ daemon: DaemonProcess, count: Int) throws {
        guard case .activity(let list) = try daemon.perform(.activity(ActivityFilter(kinds: [.motion]))) else {
            return XCTFail("activity")
        }
        XCTAssertGreaterThanOrEqual(list.items.count, count, "one motion activity per return of the ball")
        let clips = try daemon.list(perPage: 1000).items
        XCTAssertFalse(clips.isEmpty)
        for motion in list.items {
            let clip = clips.first { $0.id == motion.clip }
            XCTAssertNotNil(
                clip,
                """
                motion \(motion.id) at \(Timestamps.iso(motion.startedAt)) has a clip (activity says \
                \(motion.clip ?? "none")); 
                """
                    + "clips: \(clips.map(Self.span).joined(separator: ", "))")
            guard let clip, let end = clip.endedAt, let durationMs = clip.durationMs else { continue }
            let start = end.addingTimeInterval(-Double(durationMs) / 1000)
            // The file's own span (its end less its media duration), with a frame's worth of rounding.
            XCTAssertLessThanOrEqual(
                start.timeIntervalSince(motion.startedAt), 0.1, "clip \(clip.id) begins before motion \(motion.id)")
            XCTAssertGreaterThanOrEqual(
                end.timeIntervalSince(motion.startedAt), 0, "clip \(clip.id) ends after motion \(motion.id) began")
        }
        for clip in clips { XCTAssertEqual(try MediaProbe(clip.path).decodeErrors(), "", "\(clip.id) decodes") }
        XCTAssertFalse(daemon.log.contains("an event came while recording"), "no event was refused")
        let waited = ["waits for the recording being finalised", "the next starts once that one is finalised"]
            .map { daemon.log.components(separatedBy: $0).count - 1 }.reduce(0, +)
        // Between clips that follow each other: how far the next one's first frame is from the last one's end.
        let ordered = clips.compactMap { c in
            c.endedAt.map { end in (c, end.addingTimeInterval(-Double(c.durationMs ?? 0) / 1000), end) }
        }
        .sorted { $0.1 < $1.1 }
        let seams = zip(ordered, ordered.dropFirst()).map { String(format: "%.2f", $1.1.timeIntervalSince($0.2)) }
        print(
            """
            EventCoverageTests: \(list.items.count) motion activities, \(clips.count) clips, \(waited) start(s) \
            waited for a stop; 
            """
                + "seams (next first frame − last end, s): \(seams.joined(separator: " "))")
    }
}
