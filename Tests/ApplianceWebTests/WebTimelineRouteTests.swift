import ApplianceBase
import ApplianceProtocol
import Foundation
import HummingbirdTesting
import XCTest

@testable import ApplianceWeb

/// The timeline's routes in-process: `/api/timeline` as `ctl --json timeline` with pictures as URLs, the page, and
/// `/timeline/play`, which finds the file under a moment (or the next recorded one after a gap); bad days, hours
/// and times refused with a reason.
final class WebTimelineRouteTests: XCTestCase {
    func testTheAPIThePageAndPlayingAMoment() async throws {
        let web = try WebHarness { command throws(ApplianceError) in
            if case .timelineDays(let month) = command {
                return .timelineDays(
                    TimelineDays(
                        month: month,
                        days: [
                            TimelineDay(day: "2026-11-26", recordings: 1, recordedS: 30, events: 1),
                            TimelineDay(day: "2026-11-03", events: 2),
                        ]))
            }
            guard case .timeline(let from, let to, _) = command else {
                throw ApplianceError(.unavailable, "not in this test")
            }
            // One clip, recorded from 10:00:00 to 10:00:30 local time on 2026-11-26.
            let clipStart = Command.localDay("2026-11-26")!.start.addingTimeInterval(10 * 3600)
            let clipEnd = clipStart.addingTimeInterval(30)
            let event = Activity(
                id: 4, kind: .motion, startedAt: clipStart.addingTimeInterval(5),
                endedAt: clipStart.addingTimeInterval(9),
                thumbnail: "/secret/path/motion.jpg")
            guard clipEnd > from, clipStart < to else {
                return .timeline(
                    Timeline(
                        from: from, to: to, spans: [], gaps: [TimelineRange(start: from, end: to)], locks: [],
                        events: [],
                        eventsTotal: 0, recordedS: 0))
            }
            let person = Activity(
                id: 7, kind: .object, label: "person", startedAt: clipStart.addingTimeInterval(6), peak: 0.9)
            let span = TimelineSpan(
                start: max(from, clipStart), end: min(to, clipEnd), recordings: 1, firstId: WebTimelineRouteTests.clipID
            )
            return .timeline(
                Timeline(
                    from: from, to: to, spans: [span], gaps: [], locks: [], events: [event, person], eventsTotal: 2,
                    recordedS: 30))
        }
        var clip = try await web.addRecording().0
        let start = Command.localDay("2026-11-26")!.start.addingTimeInterval(10 * 3600)
        clip.id = Self.clipID
        (clip.createdAt, clip.endedAt, clip.durationMs) = (start, start.addingTimeInterval(30), 30_000)
        try await web.library.insert(clip)
        try await web.test { client in
            let api = try await client.request("/api/timeline?day=2026-11-26")
            XCTAssertEqual(api.status, .ok)
            XCTAssertTrue(api.text.contains("\"first_id\":\"\(Self.clipID)\""), api.text)
            XCTAssertTrue(api.text.contains("\"picture_url\":\"/media/activity/4/picture\""), api.text)
            XCTAssertFalse(api.text.contains("/secret/path"), "no path on the device")

            let page = try await client.request("/timeline?day=2026-11-26")
            XCTAssertEqual(page.status, .ok)
            XCTAssertTrue(page.text.contains("data-first=\"\(Self.clipID)\""))
            XCTAssertTrue(page.text.contains("href=\"/activity/4/play\""))
            XCTAssertTrue(
                page.text.contains("class=\"cal-day recorded events selected\" data-day=\"2026-11-26\""),
                "the day in the calendar")
            XCTAssertTrue(
                page.text.contains("class=\"cal-day events\" data-day=\"2026-11-03\""), "a day with events only")
            XCTAssertTrue(page.text.contains("class=\"cal-day\" data-day=\"2026-11-30\""), "a day without anything")
            XCTAssertTrue(page.text.contains("November 2026: 1 day with recordings"))
            XCTAssertTrue(page.text.contains("href=\"/timeline?day=2026-10-01\""), "the month before")
            XCTAssertTrue(page.text.contains("href=\"/activity/7/play\""), "the person too")
            let people = try await client.request("/timeline?day=2026-11-26&label=person")
            XCTAssertTrue(
                people.text.contains("href=\"/activity/7/play\"") && !people.text.contains("href=\"/activity/4/play\""),
                "only the person's event")
            XCTAssertTrue(people.text.contains("<span id=\"event-count\">1</span>"))
            XCTAssertTrue(
                people.text.contains("href=\"/timeline?day=2026-11-27&amp;label=person\""),
                "the next day keeps the filter")
            let days = try await client.request("/api/timeline/days?month=2026-11")
            XCTAssertEqual(try days.decode(TimelineDays.self).days.map(\.day), ["2026-11-26", "2026-11-03"])
            let hour = try await client.request("/timeline?day=2026-11-26&hour=10")
            XCTAssertTrue(hour.text.contains("10:00–11:00"), "the zoomed hour")
            XCTAssertTrue(
                hour.text.contains("href=\"/timeline?day=2026-11-26&hour=10&minute=20\""),
                "an hour's ticks zoom to ten minutes")
            let minutes = try await client.request("/timeline?day=2026-11-26&hour=10&minute=0")
            XCTAssertTrue(minutes.text.contains("10:00–10:10"), "ten minutes")
            XCTAssertTrue(minutes.text.contains("id=\"whole-hour\""), "a way back to the hour")
            XCTAssertEqual(minutes.text.components(separatedBy: "class=\"tick\"").count - 1, 11, "a tick a minute")

            // 10:00:12 is 12 s into the clip; 09:00 is in the gap before it: the clip from its start.
            let at = start.addingTimeInterval(12)
            let play = try await client.request("/timeline/play?at=" + Timestamps.iso(at))
            XCTAssertEqual(play.status, .seeOther)
            XCTAssertEqual(play.header("Location"), "/recordings/\(Self.clipID)?t=12.0")
            let before = try await client.request(
                "/timeline/play?at=" + Timestamps.iso(start.addingTimeInterval(-3600)))
            XCTAssertEqual(before.header("Location"), "/recordings/\(Self.clipID)?t=0.0")
            let after = try await client.request("/timeline/play?at=" + Timestamps.iso(start.addingTimeInterval(3600)))
            XCTAssertEqual(after.status, .notFound, "nothing after it that day")
        }
    }

    func testALoopRecordingDeviceOpensOnItsTimelineAndLiveIsOneClickAway() async throws {
        let loop = try WebHarness(
            answer: { command throws(ApplianceError) in
                guard case .status = command else { throw ApplianceError(.unavailable, "not in this test") }
                return .status(Self.status)
            }, change: { $0.recording.segmentS = 10 })
        try await loop.test { client in
            let root = try await client.request("/")
            XCTAssertEqual(root.status, .seeOther)
            XCTAssertEqual(root.header("Location"), "/timeline")
            let live = try await client.request("/live")
            XCTAssertEqual(live.status, .ok)
            XCTAssertTrue(live.text.contains("id=\"live-video\""), "the live page")
            XCTAssertTrue(live.text.contains("href=\"/live\""), "Live in the menu")
        }
        let clips = try WebHarness(answer: { command throws(ApplianceError) in
            guard case .status = command else { throw ApplianceError(.unavailable, "not in this test") }
            return .status(Self.status)
        })
        try await clips.test { client in
            let root = try await client.request("/")
            XCTAssertEqual(root.status, .ok, "a clip recorder opens on its live page")
            XCTAssertTrue(root.text.contains("id=\"live-video\""))
        }
    }

    static let status = StatusReport(
        state: .idle, ready: true, recording: nil, cameras: ["main"], activeCamera: "main",
        cameraSources: ["main": "test"], audioSource: "test",
        preview: "none", encoder: "x264", width: 1280, height: 720, framerate: 30, dataDir: "/d", uptimeS: 1,
        recordingsThisRun: 0,
        lastError: nil, gstreamerVersion: "1.22.0", recordingsTotal: 0, databaseBytes: 0, recovery: nil,
        output: OutputStats(frames: 1, slotCollisions: 0, filledSlots: 0, missingSlots: 0, missingAtEncoder: 0),
        storage: StorageStatus(state: .ok, recordingsDir: "/d/recordings"))

    static let clipID = "0b9c4e1a-1111-4222-8333-944455556666"

    func testBadRequestsAreRefusedWithAReason() async throws {
        let web = try WebHarness()
        try await web.test { client in
            for (path, reason) in [
                ("/api/timeline", "needs args.day"), ("/api/timeline?day=26.11.2026", "args.day must be a day"),
                ("/api/timeline?from=2026-11-01T00:00:00Z&to=2026-11-20T00:00:00Z", "at most 7 days"),
                ("/timeline?day=tomorrow", "day must be a day"),
                ("/timeline?day=2026-11-26&hour=24", "hour must be 0 to 23"),
                ("/timeline?day=2026-11-26&hour=3&minute=60", "minute must be 0 to 59"),
                ("/timeline?day=2026-11-26&minute=5", "minute needs hour"),
                ("/timeline/play?at=noon", "at must be a time"),
                ("/api/timeline/days?month=11-2026", "args.month must be a month"),
                ("/api/timeline/days", "needs args.month"), ("/timeline/play", "at must be a time"),
            ] {
                let r = try await client.request(path)
                XCTAssertEqual(r.status, .badRequest, path)
                XCTAssertTrue(r.text.contains(reason), "\(path): \(r.text)")
            }
        }
    }
}
