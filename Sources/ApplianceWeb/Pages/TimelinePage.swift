import ApplianceBase
import ApplianceProtocol
import Foundation

/// The timeline page: a day (or an hour of it) as one bar — recorded spans, the gaps between them, locked time and
/// activity — where a click plays the moment under it in the page's player, one continuous video across the
/// recordings (`/api/timeline/video.mp4`), with buttons and keys for ±10 s, play/pause and the next or previous
/// event. Positions are data attributes that the script turns into places on the bar (the page's CSP allows no
/// inline style); the same spans, gaps and events are listed below it, as links that work without script. With
/// several channels the bar has one row (lane) per channel, labelled, and a click plays the row's channel.
extension Pages {
    /// `day`: the local day shown (`2026-11-26`); `zoom`: the part of it shown.
    /// `month`: the days of the shown day's month that hold something, for the calendar.
    /// `scrubEveryS`: how far apart scrubbing previews are (the pointer asks for one per step).
    /// `label`: the events shown are those with this label ("" for all), kept by the day's links.
    /// `channels`: every channel, the first first: one row each when there are several.
    static func timeline(
        _ t: Timeline, day: String, zoom: TimelineZoom, month: TimelineDays?, label: String = "", scrubEveryS: Double,
        channels: [String] = [], csrf: String?
    ) -> String {
        let kept =
            label.isEmpty
            ? "" : "&amp;label=" + (label.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        let gapS = t.gaps.reduce(0) { $0 + $1.end.timeIntervalSince($1.start) }
        let lanes = Lanes(channels)
        let body = """
            <section class="timeline" data-day="\(HTML.escape(day))">
              <h1>Timeline</h1>
              <form id="timeline-day" class="filter" method="get" action="/timeline">
                <a id="previous-day" class="button" href="/timeline?day=\(shiftDay(day, -1))\(kept)">←</a>
                <input id="day" type="date" name="day" value="\(HTML.escape(day))">
                <a id="next-day" class="button" href="/timeline?day=\(shiftDay(day, 1))\(kept)">→</a>
                <input id="event-label" type="search" name="label" placeholder="events: person, car…"
                  value="\(HTML.escape(label))">
                <button>Show</button>
                \(zoomLinks(day: day, zoom: zoom))
              </form>
              \(month.map { calendar($0, selected: day) } ?? "")
              <p class="count" id="timeline-summary">\(duration(t.recordedS)) recorded ·
                <span id="gap-count">\(t.gaps.count)</span> gaps (\(duration(gapS))) ·
                <span id="event-count">\(t.eventsTotal)</span> events</p>
              <div id="timeline-player" class="timeline-player" hidden>
                <video id="player" controls playsinline preload="auto"></video>
                <p id="playing-at" class="health" role="status"></p>
              </div>
              <div class="bar-wrap"><img id="scrub-preview" class="scrub-preview" alt="" hidden>
              <div id="bar" class="bar\(lanes.channels.isEmpty ? "" : " lanes")" data-from="\(ms(t.from))"
                data-to="\(ms(t.to))" data-scrub-every="\(scrubEveryS)"\(lanes.attribute)>\(barMarks(t, lanes: lanes))
                <div id="cursor" class="cursor" hidden></div>
                <div id="playhead" class="playhead" hidden></div></div></div>
              <div class="ticks" id="ticks">\(ticks(t, day: day, zoom: zoom))</div>
              <p id="bar-time" class="health" role="status"></p>
              <div class="controls timeline-controls" id="timeline-controls">
                <button id="previous-event" title="Previous event (p)">◀ Event</button>
                <button id="back-10" title="Back 10 s (←)">−10 s</button>
                <button id="play-pause" title="Play or pause (space)">Play</button>
                <button id="forward-10" title="Forward 10 s (→)">+10 s</button>
                <button id="next-event" title="Next event (n)">Event ▶</button>
              </div>
              <p id="message" class="health" role="status"></p>
              <h2>Spans and events</h2>
              <ol id="timeline-list" class="timeline-list">\(listItems(t, lanes: lanes))</ol>
            </section>
            """
        return layout(title: "Timeline", csrf: csrf, active: "timeline", body: body)
    }

    /// The bar's marks, each placed by its start and end (ms): gaps, recorded spans, locked spans, then events;
    /// with several channels, each span and event in its channel's row and the rows' names.
    static func barMarks(_ t: Timeline, lanes: Lanes = Lanes([])) -> String {
        func stretch(_ kind: String, _ start: Date, _ end: Date) -> String {
            "<div class=\"\(kind)\" data-start=\"\(ms(start))\" data-end=\"\(ms(end))\""
        }
        let gaps = t.gaps.map { stretch("gap", $0.start, $0.end) + "></div>" }
        let spans = t.spans.map { s in
            stretch(s.locked > 0 ? "span locked" : "span", s.start, s.end) + lanes.attributes(s.channel)
                + " data-first=\"\(HTML.escape(s.firstId))\" title=\"\(lanes.prefix(s.channel))\(clock(s.start))–"
                + "\(clock(s.end))\"></div>"
        }
        let locks = t.locks.map { stretch("lock", $0.start, $0.end) + "></div>" }
        let events = t.events.map { a in
            let name = activityName(a.kind) + (a.label.map { " " + HTML.escape($0) } ?? "")
            return "<a class=\"event \(a.kind.rawValue)\" data-start=\"\(ms(a.startedAt))\" data-id=\"\(a.id)\""
                + lanes.attributes(a.channel) + " href=\"/activity/\(a.id)/play\""
                + " title=\"\(lanes.prefix(a.channel))\(name) \(clock(a.startedAt))\"></a>"
        }
        return (gaps + spans + locks + events + lanes.labels).joined()
    }

    /// The bar's rows: one per channel when there are several, none (the whole bar) otherwise. What names no channel
    /// (rows from before channels) is the first's.
    struct Lanes {
        let channels: [String]
        init(_ channels: [String]) { self.channels = channels.count > 1 ? channels : [] }

        func index(_ channel: String?) -> Int? {
            guard !channels.isEmpty else { return nil }
            return channel.flatMap { channels.firstIndex(of: $0) } ?? 0
        }

        /// ` data-lane="1" data-channel="rear"`, or nothing with one channel.
        func attributes(_ channel: String?) -> String {
            guard let lane = index(channel) else { return "" }
            return " data-lane=\"\(lane)\" data-channel=\"\(HTML.escape(channels[lane]))\""
        }

        /// The bar's `data-lanes`: the channels in row order (the script plays a row's channel), or nothing.
        var attribute: String {
            channels.isEmpty ? "" : " data-lanes=\"\(HTML.escape(channels.joined(separator: ",")))\""
        }

        /// "rear: " for a mark's title, or nothing with one channel.
        func prefix(_ channel: String?) -> String {
            index(channel).map { HTML.escape(channels[$0]) + ": " } ?? ""
        }

        /// Each row's name, at its left edge.
        var labels: [String] {
            channels.enumerated().map { lane, name in
                "<span class=\"lane-label\" data-lane=\"\(lane)\">\(HTML.escape(name))</span>"
            }
        }
    }

    /// "Whole day" (and "Whole hour" from ten minutes) and the times shown, when zoomed.
    static func zoomLinks(day: String, zoom: TimelineZoom) -> String {
        guard let label = zoom.label else { return "" }
        let day = HTML.escape(day)
        var links = "<a id=\"whole-day\" class=\"button\" href=\"/timeline?day=\(day)\">Whole day</a> "
        if zoom.minute != nil, let hour = zoom.hour {
            links += "<a id=\"whole-hour\" class=\"button\" href=\"/timeline?day=\(day)&hour=\(hour)\">Whole hour</a> "
        }
        return links + "<span class=\"zoom\">\(label)</span>"
    }

    /// Time marks along the bar (`zoom.tickStep` apart), each a link that zooms in where there is a closer view.
    static func ticks(_ t: Timeline, day: String, zoom: TimelineZoom) -> String {
        var marks: [String] = []
        var at = t.from
        while at <= t.to {
            let label = clock(at).prefix(5)
            if at < t.to, let link = zoom.tickLink(day: HTML.escape(day), at: at) {
                marks.append("<a class=\"tick\" data-start=\"\(ms(at))\" href=\"\(link)\">\(label)</a>")
            } else {
                marks.append("<span class=\"tick\" data-start=\"\(ms(at))\">\(label)</span>")
            }
            at = at.addingTimeInterval(zoom.tickStep)
        }
        return marks.joined()
    }

    /// Spans, gaps and events in time order, as text with links (what the bar shows, readable without script).
    static func listItems(_ t: Timeline, lanes: Lanes = Lanes([])) -> String {
        var items: [(Date, String)] = []
        for s in t.spans {
            let channel = lanes.index(s.channel).map { lanes.channels[$0] }.map {
                "&amp;channel=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
            }
            let what =
                s.group != nil
                ? "loop, \(s.recordings) segments" : "\(s.recordings) \(s.recordings == 1 ? "clip" : "clips")"
            let locked = s.locked > 0 ? ", \(s.locked) locked" : ""
            items.append(
                (
                    s.start,
                    "<li class=\"span-item\">\(lanes.prefix(s.channel))<a href=\"/timeline/play?at="
                        + "\(Timestamps.iso(s.start))\(channel ?? "")\">\(clock(s.start))–\(clock(s.end))</a>"
                        + " recorded, "
                        + "\(duration(s.end.timeIntervalSince(s.start))) (\(what)\(locked))</li>"
                ))
        }
        for g in t.gaps {
            items.append(
                (
                    g.start,
                    """
                    <li class=\"gap-item\">\(clock(g.start))–\(clock(g.end)) nothing recorded \
                    (\(duration(g.end.timeIntervalSince(g.start))))</li>
                    """
                ))
        }
        for a in t.events {
            let label = a.label.map { " “\(HTML.escape($0))”" } ?? ""
            items.append(
                (
                    a.startedAt,
                    "<li class=\"event-item \(a.kind.rawValue)\"><a href=\"/activity/\(a.id)/play\">"
                        + "\(clock(a.startedAt))</a> \(activityName(a.kind))\(label)"
                        + "\(a.durationS.map { ", \(duration($0))" } ?? "")</li>"
                ))
        }
        let sorted = items.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(
            \.element.1)
        return sorted.isEmpty ? "<li class=\"empty\">Nothing recorded.</li>" : sorted.joined()
    }

    static func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    /// The device's local time of day, to the second.
    static func clock(_ date: Date) -> String {
        let c = Calendar.current.dateComponents([.hour, .minute, .second], from: date)
        return String(format: "%02d:%02d:%02d", c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }

    /// "4 h 02 min", "3 min 20 s", "12 s".
    static func duration(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s >= 3600 { return String(format: "%d h %02d min", s / 3600, s / 60 % 60) }
        if s >= 60 { return String(format: "%d min %02d s", s / 60, s % 60) }
        return "\(s) s"
    }

    /// The local day `days` after `day` (`2026-11-26`), in the same form.
    static func shiftDay(_ day: String, _ days: Int) -> String {
        guard let start = Command.localDay(day)?.start,
            let shifted = Calendar.current.date(byAdding: .day, value: days, to: start)
        else { return day }
        return localDay(shifted)
    }

    static func localDay(_ date: Date) -> String { Command.dayText(date) }
}
