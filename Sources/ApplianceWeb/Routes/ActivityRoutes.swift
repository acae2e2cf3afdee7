import ApplianceBase
import ApplianceProtocol
import Foundation
import FrontEndInterface
import Hummingbird

/// Activity (motion, sound, presses, marks): the events page, its API, each activity's picture, and "play", which
/// opens the recording that covers an activity at the moment it began.
extension Routes {
    func addActivity(to router: GuardedRouter) {
        addActivityAPI(to: router)
        addActivityPages(to: router)
    }

    /// `/api/activity` (a page of it), `/api/activity/:id` and each activity's picture.
    private func addActivityAPI(to router: GuardedRouter) {
        router.get("api/activity") { request, _ -> Response in
            guard case .activity(let list) = try await perform(try Self.activityCommand(request.uri.queryParameters))
            else {
                throw WebError(.internalServerError, "unexpected result")
            }
            struct Page: Encodable {
                var items: [WebActivity]
                var total: Int
            }
            return try JSONBody.response(Page(items: list.items.map(WebActivity.init), total: list.total))
        }
        router.get("api/activity/:id") { _, ctx -> Response in
            let detail = try await activityDetail(try ctx.parameters.require("id"))
            struct Detail: Encodable {
                var activity: WebActivity
                var recordings: [WebRecording]
                var playUrl: String?
            }
            return try JSONBody.response(
                Detail(
                    activity: WebActivity(activity: detail.activity),
                    recordings: detail.recordings.map { WebRecording(recording: $0) },
                    playUrl: ActivityPlayback(detail).map(\.url)))
        }
        for method in [HTTPRequest.Method.get, .head] {
            router.on("media/activity/:id/picture", method: method) { request, ctx -> Response in
                let activity = try await activityDetail(try ctx.parameters.require("id")).activity
                guard let picture = activity.thumbnail else {
                    throw WebError(.notFound, "activity \(activity.id) has no picture")
                }
                return try MediaResponder.respond(to: request, path: picture, contentType: "image/jpeg")
            }
        }
    }

    /// `/activity` (the events page) and `/activity/:id/play`.
    private func addActivityPages(to router: GuardedRouter) {
        router.get("activity") { request, ctx -> Response in
            let query = request.uri.queryParameters
            let csrf = ctx.access.session?.csrf
            let command: Command
            do {
                command = try Self.activityCommand(query)
            } catch let error as WebError {
                return HTML.response(Pages.error(400, error.message, csrf: csrf), status: .badRequest)
            }
            guard case .activity(let list) = try await perform(command) else {
                throw WebError(.internalServerError, "unexpected result")
            }
            let kept = [
                "kind": query.get("kind") ?? "", "label": query.get("label") ?? "", "day": query.get("day") ?? "",
            ]
            return HTML.response(Pages.activity(list: list, query: kept, csrf: csrf))
        }
        router.get("activity/:id/play") { _, ctx -> Response in
            let csrf = ctx.access.session?.csrf
            let detail: ActivityDetail
            do {
                detail = try await activityDetail(try ctx.parameters.require("id"))
            } catch let error as WebError {
                return HTML.response(
                    Pages.error(Int(error.status.code), error.message, csrf: csrf), status: error.status)
            }
            guard let playback = ActivityPlayback(detail) else {
                let message =
                    """
                    nothing recorded covers activity \(detail.activity.id) (no recording was running, or it was \
                    deleted)
                    """
                return HTML.response(Pages.error(404, message, csrf: csrf), status: .notFound)
            }
            return Response(status: .seeOther, headers: [.location: playback.url, .cacheControl: "no-store"])
        }
    }

    /// `activity.show` for a number given in a path: 404 for what is not a number or not stored.
    func activityDetail(_ text: String) async throws -> ActivityDetail {
        guard let id = Int64(text), id > 0 else {
            throw WebError(.notFound, "no activity with number \(text.prefix(40))")
        }
        guard case .activityDetail(let detail) = try await perform(.activityShow(id: id)) else {
            throw WebError(.internalServerError, "unexpected result")
        }
        return detail
    }

    /// `?kind=motion,sound&label=person&day=2026-11-26&from=…&to=…&limit=N`, checked as `ctl activity` is.
    static func activityCommand(_ query: Parameters) throws -> Command {
        var arguments: [String: JSONValue] = [:]
        for key in ["kind", "label", "day", "from", "to", "channel"] {
            if let value = query.get(key), !value.isEmpty { arguments[key] = .string(value) }
        }
        if let text = query.get("limit"), !text.isEmpty {
            guard let limit = Int(text) else {
                throw WebError(.badRequest, "limit must be a whole number, found \"\(text.prefix(40))\"")
            }
            arguments["limit"] = .int(limit)
        }
        return try command("activity", arguments)
    }
}

/// An activity as the API gives it: the `ctl --json` object without the picture's path on the device, plus
/// `picture_url` and `play_url`.
struct WebActivity: Encodable {
    let activity: Activity

    enum Keys: String, CodingKey {
        case id, kind, label, camera, channel, startedAt, endedAt, durationS, zones, peak, pictureUrl, playUrl
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(activity.id, forKey: .id)
        try c.encode(activity.kind, forKey: .kind)
        try c.encodeIfPresent(activity.label, forKey: .label)
        try c.encodeIfPresent(activity.camera, forKey: .camera)
        try c.encodeIfPresent(activity.channel, forKey: .channel)
        try c.encode(activity.startedAt, forKey: .startedAt)
        try c.encodeIfPresent(activity.endedAt, forKey: .endedAt)
        try c.encodeIfPresent(activity.durationS, forKey: .durationS)
        try c.encode(activity.zones, forKey: .zones)
        try c.encodeIfPresent(activity.peak, forKey: .peak)
        if activity.thumbnail != nil { try c.encode(MediaPaths.activityPicture(activity.id), forKey: .pictureUrl) }
        try c.encode(MediaPaths.activityPlay(activity.id), forKey: .playUrl)
    }
}

/// Where an activity plays: the recording under its start (the first that covers any of it otherwise), from the
/// second it began, counted from the file's first frame (`Recording.mediaStart`).
struct ActivityPlayback: Equatable {
    let recordingID: String
    let seconds: Double

    init?(_ detail: ActivityDetail) {
        let start = detail.activity.startedAt
        let playable = detail.recordings.filter { $0.state == .complete || $0.state == .recovered }
        func span(_ r: Recording) -> (Date, Date)? {
            guard let start = r.mediaStart, let ms = r.durationMs else { return nil }
            return (start, start.addingTimeInterval(Double(ms) / 1000))
        }
        if let under = playable.first(where: { span($0).map { $0.0 <= start && start < $0.1 } ?? false }),
            let (from, _) = span(under)
        {
            (recordingID, seconds) = (under.id, max(0, start.timeIntervalSince(from)))
        } else if let first = playable.first {
            (recordingID, seconds) = (first.id, 0)
        } else {
            return nil
        }
    }

    /// The clip page, asked to start at `seconds` (tenths).
    var url: String { "/recordings/\(recordingID)?t=" + String(format: "%.1f", seconds) }
}
