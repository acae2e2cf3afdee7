import ApplianceBase
import ApplianceProtocol
import Foundation
import FrontEndInterface
import Hummingbird

/// `/api/timeline?day=2026-11-26` (or `from=…&to=…`): a day's recorded spans, gaps, locks and activity in one
/// answer, checked as `ctl timeline` is.
extension Routes {
    func addTimeline(to router: GuardedRouter) {
        router.get("api/timeline") { request, _ -> Response in
            let query = request.uri.queryParameters
            var arguments: [String: JSONValue] = [:]
            for key in ["day", "from", "to", "channel"] {
                if let value = query.get(key), !value.isEmpty { arguments[key] = .string(value) }
            }
            guard case .timeline(let timeline) = try await perform(try Self.command("timeline", arguments)) else {
                throw WebError(.internalServerError, "unexpected result")
            }
            return try JSONBody.response(WebTimeline(timeline: timeline))
        }
        router.get("api/timeline/days") { request, _ -> Response in
            var arguments: [String: JSONValue] = [:]
            if let month = request.uri.queryParameters.get("month"), !month.isEmpty {
                arguments["month"] = .string(month)
            }
            return try JSONBody.response(try await perform(try Self.command("timeline.days", arguments)))
        }
        router.get("timeline") { request, ctx -> Response in
            try await timelinePage(request.uri.queryParameters, csrf: ctx.access.session?.csrf)
        }
        router.get("timeline/play") { request, ctx -> Response in
            let csrf = ctx.access.session?.csrf
            let text = request.uri.queryParameters.get("at") ?? ""
            guard let at = Timestamps.date(iso: text) else {
                return HTML.response(
                    Pages.error(
                        400, "at must be a time such as 2026-11-26T14:03:00Z, found \"\(text.prefix(40))\"",
                        csrf: csrf),
                    status: .badRequest)
            }
            let channel: String?
            do {
                channel = try Self.channel(request, among: context.media.channels)
            } catch let error as WebError {
                return HTML.response(Pages.error(400, error.message, csrf: csrf), status: .badRequest)
            }
            guard let target = try await playTarget(at: at, channel: channel) else {
                return HTML.response(
                    Pages.error(404, "nothing was recorded at or after \(text.prefix(40)) that day", csrf: csrf),
                    status: .notFound)
            }
            return Response(status: .seeOther, headers: [.location: target, .cacheControl: "no-store"])
        }
    }

    /// `/timeline?day=…[&hour=…[&minute=…]][&label=…]`: a day (or an hour, or a minute of it) on the page.
    func timelinePage(_ query: Parameters, csrf: String?) async throws -> Response {
        let day = query.get("day").flatMap { $0.isEmpty ? nil : $0 } ?? Pages.localDay(Date())
        guard let range = Command.localDay(day) else {
            return HTML.response(
                Pages.error(400, "day must be a day such as 2026-11-26, found \"\(day.prefix(40))\"", csrf: csrf),
                status: .badRequest)
        }
        let zoom: TimelineZoom
        switch TimelineZoom.parse(hour: query.get("hour"), minute: query.get("minute")) {
        case .success(let parsed): zoom = parsed
        case .failure(let error):
            return HTML.response(Pages.error(400, error.message, csrf: csrf), status: .badRequest)
        }
        let (from, to) = zoom.range(dayStart: range.start, dayEnd: range.end)
        guard case .timeline(var timeline) = try await perform(.timeline(from: from, to: to)) else {
            throw WebError(.internalServerError, "unexpected result")
        }
        // `label`: only the events with that label on the bar and in the list (an object's `person`).
        let label = (query.get("label") ?? "").trimmingCharacters(in: .whitespaces)
        if !label.isEmpty {
            timeline.events = timeline.events.filter { $0.label == label }
            timeline.eventsTotal = timeline.events.count
        }
        // The calendar is a help, not the page: without it the day still shows.
        let month: TimelineDays?
        if case .timelineDays(let days)? = try? await perform(.timelineDays(month: String(day.prefix(7)))) {
            month = days
        } else {
            month = nil
        }
        return HTML.response(
            Pages.timeline(
                timeline, day: day, zoom: zoom, month: month, label: label,
                scrubEveryS: context.config.thumbnail.scrubEveryS, channels: context.media.channels, csrf: csrf))
    }

    /// The clip page at the moment `at`: the file that holds it, or the next recorded moment when `at` is in a gap
    /// (until the end of its day).
    /// `channel`: that channel's file (nil: any channel's).
    func playTarget(at: Date, channel: String? = nil) async throws -> String? {
        let end = Command.localDay(Pages.localDay(at))?.end ?? at.addingTimeInterval(86_400)
        guard at < end,
            case .timeline(let timeline) = try await perform(.timeline(from: at, to: end, channel: channel)),
            let span = timeline.spans.first, let recording = try await context.media.recording(id: span.firstId)
        else { return nil }
        var offset = 0.0
        if span.start <= at, let start = recording.mediaStart { offset = max(0, at.timeIntervalSince(start)) }
        return "/recordings/\(recording.id)?t=" + String(format: "%.1f", offset)
    }
}

/// A timeline as the API gives it: the `ctl --json` object, each event as `/api/activity` gives it (a picture URL
/// rather than a path on the device).
struct WebTimeline: Encodable {
    let timeline: Timeline

    enum Keys: String, CodingKey { case from, to, spans, gaps, locks, events, eventsTotal, recordedS, elapsedMs }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(timeline.from, forKey: .from)
        try c.encode(timeline.to, forKey: .to)
        try c.encode(timeline.spans, forKey: .spans)
        try c.encode(timeline.gaps, forKey: .gaps)
        try c.encode(timeline.locks, forKey: .locks)
        try c.encode(timeline.events.map(WebActivity.init), forKey: .events)
        try c.encode(timeline.eventsTotal, forKey: .eventsTotal)
        try c.encode(timeline.recordedS, forKey: .recordedS)
        try c.encode(timeline.elapsedMs, forKey: .elapsedMs)
    }
}
