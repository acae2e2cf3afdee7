import ApplianceProtocol
import Foundation

/// The timeline page: a day (or an hour of it) as one bar — recorded spans, the gaps between them, locked time and
/// activity — where a click plays the moment under it. Positions are data attributes that the script turns into
/// places on the bar (the page's CSP allows no inline style); the same spans, gaps and events are listed below it.
extension Pages {
    /// `day`: the local day shown (`2026-11-26`); `hour`: the hour zoomed to, if any.
    static func timeline(_ t: Timeline, day: String, hour: Int?, csrf: String?) -> String {
        let spans = t.spans.map { s in
            "<div class=\"span\(s.locked > 0 ? " locked" : "")\" data-start=\"\(ms(s.start))\" data-end=\"\(ms(s.end))\" data-first=\"\(HTML.escape(s.firstId))\" "
                + "title=\"\(clock(s.start))–\(clock(s.end))\"></div>"
        }.joined()
        let gaps = t.gaps.map { "<div class=\"gap\" data-start=\"\(ms($0.start))\" data-end=\"\(ms($0.end))\"></div>" }.joined()
        let locks = t.locks.map { "<div class=\"lock\" data-start=\"\(ms($0.start))\" data-end=\"\(ms($0.end))\"></div>" }.joined()
        let events = t.events.map { a in
            "<a class=\"event \(a.kind.rawValue)\" data-start=\"\(ms(a.startedAt))\" data-id=\"\(a.id)\" href=\"/activity/\(a.id)/play\" "
                + "title=\"\(activityName(a.kind)) \(clock(a.startedAt))\"></a>"
        }.joined()
        let gapS = t.gaps.reduce(0) { $0 + $1.end.timeIntervalSince($1.start) }
        let body = """
        <section class="timeline" data-day="\(HTML.escape(day))">
          <h1>Timeline</h1>
          <form id="timeline-day" class="filter" method="get" action="/timeline">
            <a id="previous-day" class="button" href="/timeline?day=\(shiftDay(day, -1))">←</a>
            <input id="day" type="date" name="day" value="\(HTML.escape(day))">
            <a id="next-day" class="button" href="/timeline?day=\(shiftDay(day, 1))">→</a>
            <button>Show</button>
            \(hour.map { "<a id=\"whole-day\" class=\"button\" href=\"/timeline?day=\(HTML.escape(day))\">Whole day</a> <span class=\"zoom\">\(String(format: "%02d:00–%02d:00", $0, $0 + 1))</span>" } ?? "")
          </form>
          <p class="count" id="timeline-summary">\(duration(t.recordedS)) recorded · <span id="gap-count">\(t.gaps.count)</span> gaps (\(duration(gapS))) · <span id="event-count">\(t.eventsTotal)</span> events</p>
          <div id="bar" class="bar" data-from="\(ms(t.from))" data-to="\(ms(t.to))">\(gaps)\(spans)\(locks)\(events)<div id="cursor" class="cursor" hidden></div></div>
          <div class="ticks" id="ticks">\(ticks(t, day: day, zoomed: hour != nil))</div>
          <p id="bar-time" class="health" role="status"></p>
          <h2>Spans and events</h2>
          <ol id="timeline-list" class="timeline-list">\(listItems(t))</ol>
        </section>
        """
        return layout(title: "Timeline", csrf: csrf, active: "timeline", body: body)
    }

    /// Hour marks along the bar: every 3 hours for a day (each a link that zooms to that hour), every 10 minutes
    /// for an hour.
    static func ticks(_ t: Timeline, day: String, zoomed: Bool) -> String {
        let step: TimeInterval = zoomed ? 600 : 3 * 3600
        var marks: [String] = []
        var at = t.from
        while at <= t.to {
            let label = clock(at).prefix(5)
            let hour = Calendar.current.component(.hour, from: at)
            marks.append(zoomed || at == t.to
                ? "<span class=\"tick\" data-start=\"\(ms(at))\">\(label)</span>"
                : "<a class=\"tick\" data-start=\"\(ms(at))\" href=\"/timeline?day=\(HTML.escape(day))&hour=\(hour)\">\(label)</a>")
            at = at.addingTimeInterval(step)
        }
        return marks.joined()
    }

    /// Spans, gaps and events in time order, as text with links (what the bar shows, readable without script).
    static func listItems(_ t: Timeline) -> String {
        var items: [(Date, String)] = []
        for s in t.spans {
            let what = s.group != nil ? "loop, \(s.recordings) segments" : "\(s.recordings) \(s.recordings == 1 ? "clip" : "clips")"
            items.append((s.start, "<li class=\"span-item\"><a href=\"/timeline/play?at=\(Timestamps.iso(s.start))\">\(clock(s.start))–\(clock(s.end))</a> "
                + "recorded, \(duration(s.end.timeIntervalSince(s.start))) (\(what)\(s.locked > 0 ? ", \(s.locked) locked" : ""))</li>"))
        }
        for g in t.gaps {
            items.append((g.start, "<li class=\"gap-item\">\(clock(g.start))–\(clock(g.end)) nothing recorded (\(duration(g.end.timeIntervalSince(g.start))))</li>"))
        }
        for a in t.events {
            items.append((a.startedAt, "<li class=\"event-item \(a.kind.rawValue)\"><a href=\"/activity/\(a.id)/play\">\(clock(a.startedAt))</a> "
                + "\(activityName(a.kind))\(a.label.map { " “\(HTML.escape($0))”" } ?? "")\(a.durationS.map { ", \(duration($0))" } ?? "")</li>"))
        }
        let sorted = items.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element.1)
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
              let shifted = Calendar.current.date(byAdding: .day, value: days, to: start) else { return day }
        return localDay(shifted)
    }

    static func localDay(_ date: Date) -> String { Command.dayText(date) }
}
