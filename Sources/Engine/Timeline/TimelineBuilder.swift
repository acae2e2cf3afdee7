import ApplianceProtocol
import Foundation
import MediaLibrary

/// Turns a range's recordings and activity into a `Timeline`: files that follow one another become spans, the time
/// between spans gaps, locked files lock ranges. A pure function, tested in-process.
package enum TimelineBuilder {
    /// `files` oldest first (as the library gives them); `events` newest first (as `activity` lists them).
    package static func build(files: [TimelineFile], events: ActivityList, from: Date, to: Date, now: Date) -> Timeline
    {
        let spans = spans(files, from: from, to: to)
        let recorded = spans.reduce(0) { $0 + $1.end.timeIntervalSince($1.start) }
        return Timeline(
            from: from, to: to, spans: spans, gaps: gaps(spans, from: from, to: min(to, now)),
            locks: merged(files.filter(\.locked).compactMap { clipped($0.start, $0.end, from, to) }),
            events: events.items.reversed(), eventsTotal: events.total, recordedS: recorded)
    }

    package static func spans(_ files: [TimelineFile], from: Date, to: Date) -> [TimelineSpan] {
        var spans: [TimelineSpan] = []
        for file in files {
            guard let range = clipped(file.start, file.end, from, to) else { continue }
            if var last = spans.last, range.start.timeIntervalSince(last.end) < TimelineSpan.joinGapS {
                last.end = max(last.end, range.end)
                last.recordings += 1
                if last.group != file.group { last.group = nil }
                if let camera = file.camera, !last.cameras.contains(camera) { last.cameras.append(camera) }
                last.locked += file.locked ? 1 : 0
                last.live = last.live || file.live
                spans[spans.count - 1] = last
            } else {
                spans.append(
                    TimelineSpan(
                        start: range.start, end: range.end, recordings: 1, firstId: file.id, group: file.group,
                        cameras: file.camera.map { [$0] } ?? [], locked: file.locked ? 1 : 0, live: file.live))
            }
        }
        return spans
    }

    /// What no span covers between `from` and `to` (gaps shorter than the join gap are none).
    package static func gaps(_ spans: [TimelineSpan], from: Date, to: Date) -> [TimelineRange] {
        var gaps: [TimelineRange] = []
        var cursor = from
        for span in spans {
            if span.start.timeIntervalSince(cursor) >= TimelineSpan.joinGapS, cursor < to {
                gaps.append(TimelineRange(start: cursor, end: min(span.start, to)))
            }
            cursor = max(cursor, span.end)
        }
        if to.timeIntervalSince(cursor) >= TimelineSpan.joinGapS { gaps.append(TimelineRange(start: cursor, end: to)) }
        return gaps
    }

    static func merged(_ ranges: [TimelineRange]) -> [TimelineRange] {
        var out: [TimelineRange] = []
        for range in ranges.sorted(by: { $0.start < $1.start }) {
            if let last = out.last, range.start.timeIntervalSince(last.end) < TimelineSpan.joinGapS {
                out[out.count - 1].end = max(last.end, range.end)
            } else {
                out.append(range)
            }
        }
        return out
    }

    static func clipped(_ start: Date, _ end: Date, _ from: Date, _ to: Date) -> TimelineRange? {
        let range = TimelineRange(start: max(start, from), end: min(end, to))
        return range.start < range.end ? range : nil
    }
}
