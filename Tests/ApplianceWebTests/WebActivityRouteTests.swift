import ApplianceBase
import ApplianceProtocol
import Foundation
import HummingbirdTesting
import XCTest

@testable import ApplianceWeb

/// The events routes in-process: the API hides the picture's path and gives its URL, "play" redirects to the clip
/// under the activity's start, and bad numbers, kinds and limits are refused with a reason.
final class WebActivityRouteTests: XCTestCase {
    static let start = Date(timeIntervalSince1970: 1_790_000_000)

    /// A clip with 2 s of pre-roll: created at `start` - 1 s, ended at `start` + 9 s, 12 s long (its file begins at
    /// `start` - 3 s), so the activity starts 3 s into it.
    static func clip(id: String, state: Recording.State = .complete) -> Recording {
        var r = Recording(
            id: id, title: "clip", createdAt: start.addingTimeInterval(-1), path: "/nowhere/\(id).mp4", state: state)
        (r.endedAt, r.durationMs) = (start.addingTimeInterval(9), 12_000)
        return r
    }

    func testPlayStartsTheClipUnderTheStartWhereItBegan() {
        let activity = Activity(id: 5, kind: .motion, startedAt: Self.start, endedAt: Self.start.addingTimeInterval(4))
        var earlier = Self.clip(id: "earlier")
        (earlier.createdAt, earlier.endedAt, earlier.durationMs) = (
            Self.start.addingTimeInterval(-10.5), Self.start.addingTimeInterval(-0.5), 10_000
        )
        let playback = ActivityPlayback(
            ActivityDetail(activity: activity, recordings: [earlier, Self.clip(id: "under")]))
        XCTAssertEqual(playback?.recordingID, "under")
        XCTAssertEqual(playback?.seconds ?? -1, 3, accuracy: 0.001)
        XCTAssertEqual(playback?.url, "/recordings/under?t=3.0")
        // Only a later recording covers part of it: that one, from its beginning.
        var later = Self.clip(id: "later")
        (later.createdAt, later.endedAt, later.durationMs) = (
            Self.start.addingTimeInterval(2), Self.start.addingTimeInterval(20), 18_000
        )
        XCTAssertEqual(ActivityPlayback(ActivityDetail(activity: activity, recordings: [later]))?.seconds, 0)
        // Nothing playable: a recording still being written or failed is not offered.
        XCTAssertNil(
            ActivityPlayback(ActivityDetail(activity: activity, recordings: [Self.clip(id: "open", state: .recording)]))
        )
        XCTAssertNil(ActivityPlayback(ActivityDetail(activity: activity, recordings: [])))
    }

    func testTheAPIThePictureAndPlay() async throws {
        let pictureBytes = Data((0..<3000).map { UInt8($0 % 251) })
        let picturePath = NSTemporaryDirectory() + "activity-\(UUID().uuidString.prefix(8)).jpg"
        try pictureBytes.write(to: URL(fileURLWithPath: picturePath))
        defer { try? FileManager.default.removeItem(atPath: picturePath) }
        let seen = Activity(
            id: 5, kind: .motion, camera: "front", startedAt: Self.start, endedAt: Self.start.addingTimeInterval(4),
            zones: ["door"], peak: 0.04, thumbnail: picturePath)
        let unseen = Activity(id: 6, kind: .external, label: "door contact", startedAt: Self.start, endedAt: Self.start)
        let web = try WebHarness { command throws(ApplianceError) in
            switch command {
            case .activity(let filter) where filter.label == "person":
                return .activity(
                    ActivityList(
                        items: [Activity(id: 9, kind: .object, label: "person", startedAt: Self.start, peak: 0.87)],
                        total: 1))
            case .activity: return .activity(ActivityList(items: [unseen, seen], total: 2))
            case .activityShow(5):
                return .activityDetail(ActivityDetail(activity: seen, recordings: [Self.clip(id: "under")]))
            case .activityShow(6): return .activityDetail(ActivityDetail(activity: unseen, recordings: []))
            case .activityShow(let id): throw ApplianceError(.notFound, "no activity with number \(id)")
            default: throw ApplianceError(.unavailable, "not in this test")
            }
        }
        try await web.test { client in
            let list = try await client.request("/api/activity?kind=motion,external&day=2026-09-21&limit=10")
            XCTAssertEqual(list.status, .ok)
            XCTAssertFalse(list.text.contains(picturePath), "the picture's path on the device is not given out")
            XCTAssertTrue(list.text.contains("\"picture_url\":\"/media/activity/5/picture\""), list.text)
            XCTAssertTrue(list.text.contains("\"play_url\":\"/activity/6/play\""), list.text)

            let detail = try await client.request("/api/activity/5")
            XCTAssertTrue(detail.text.contains("\"play_url\":\"/recordings/under?t=3.0\""), detail.text)

            let picture = try await client.request("/media/activity/5/picture")
            XCTAssertEqual(picture.status, .ok)
            XCTAssertEqual(picture.header("Content-Type"), "image/jpeg")
            XCTAssertEqual(picture.data, pictureBytes)
            let none = try await client.request("/media/activity/6/picture")
            XCTAssertEqual(none.status, .notFound, "no picture")
            let anonymous = try await client.request("/media/activity/5/picture", auth: false)
            XCTAssertEqual(anonymous.status, .unauthorized)

            let play = try await client.request("/activity/5/play")
            XCTAssertEqual(play.status, .seeOther)
            XCTAssertEqual(play.header("Location"), "/recordings/under?t=3.0")
            let nothing = try await client.request("/activity/6/play")
            XCTAssertEqual(nothing.status, .notFound)
            XCTAssertTrue(nothing.text.contains("nothing recorded covers activity 6"), nothing.text)

            let people = try await client.request("/activity?kind=object&label=person")
            XCTAssertTrue(people.text.contains("data-id=\"9\"") && people.text.contains("score 0.87"), people.text)
            let labelInput = people.text.components(separatedBy: "<input id=\"label\"").dropFirst().first?
                .prefix { $0 != ">" }
            XCTAssertTrue(labelInput?.contains("value=\"person\"") ?? false, "the filter kept in the form")
            let api = try await client.request("/api/activity?label=person")
            XCTAssertTrue(api.text.contains("\"label\":\"person\""), api.text)

            let page = try await client.request("/activity?kind=motion")
            XCTAssertEqual(page.status, .ok)
            XCTAssertTrue(page.text.contains("data-id=\"5\""))
            XCTAssertTrue(page.text.contains("door contact"))
        }
    }

    func testBadRequestsAreRefusedWithAReason() async throws {
        let web = try WebHarness { command throws(ApplianceError) in
            if case .activityShow(let id) = command { throw ApplianceError(.notFound, "no activity with number \(id)") }
            return .activity(ActivityList(items: [], total: 0))
        }
        try await web.test { client in
            for (query, reason) in [
                ("kind=bird", "unknown kind"), ("limit=lots", "whole number"), ("limit=0", "between 1 and"),
                ("day=yesterday", "args.day"), ("from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "before"),
            ] {
                let r = try await client.request("/api/activity?" + query)
                XCTAssertEqual(r.status, .badRequest, query)
                XCTAssertEqual(r.errorCode, "bad_request", query)
                XCTAssertTrue(r.text.contains(reason), "\(query): \(r.text)")
                let page = try await client.request("/activity?" + query)
                XCTAssertEqual(page.status, .badRequest, "the page: \(query)")
            }
            for path in [
                "/api/activity/abc", "/api/activity/-1", "/api/activity/99", "/media/activity/x/picture",
                "/activity/99/play",
                "/activity/99999999999999999999/play",
            ] {
                let r = try await client.request(path)
                XCTAssertEqual(r.status, .notFound, path)
            }
        }
    }
}
