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
        let recorded = covered(spans.map { TimelineRange(start: $0.start, end: $0.end) })
        return Timeline(
            from: from, to: to, spans: spans, gaps: gaps(spans, from: from, to: min(to, now)),
            locks: merged(files.filter(\.locked).compactMap { clipped($0.start, $0.end, from, to) }),
            events: events.items.reversed(), eventsTotal: events.total, recordedS: recorded)
    }

    /// Each channel's files that follow one another, as spans in order of their start: channels that record side by
    /// side have spans of their own over the same time (joined, two channels' clips made one span whose first file
    /// was either's).
    package static func spans(_ files: [TimelineFile], from: Date, to: Date) -> [TimelineSpan] {
        var spans: [TimelineSpan] = []
        var lastOf: [String?: Int] = [:]  // each channel's last span, by index
        for file in files {
            guard let range = clipped(file.start, file.end, from, to) else { continue }
            if let index = lastOf[file.channel], range.start.timeIntervalSince(spans[index].end) < TimelineSpan.joinGapS
            {
                var last = spans[index]
                last.end = max(last.end, range.end)
                last.recordings += 1
                if last.group != file.group { last.group = nil }
                if let camera = file.camera, !last.cameras.contains(camera) { last.cameras.append(camera) }
                last.locked += file.locked ? 1 : 0
                last.live = last.live || file.live
                spans[index] = last
            } else {
                lastOf[file.channel] = spans.count
                spans.append(
                    TimelineSpan(
                        start: range.start, end: range.end, recordings: 1, firstId: file.id, group: file.group,
                        cameras: file.camera.map { [$0] } ?? [], locked: file.locked ? 1 : 0, live: file.live,
                        channel: file.channel))
            }
        }
        let inOrder = spans.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
        return inOrder.map(\.element)
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

    /// Seconds that at least one of `ranges` covers (channels side by side count their common time once).
    static func covered(_ ranges: [TimelineRange]) -> TimeInterval {
        var total: TimeInterval = 0
        var reached: Date?
        for range in ranges.sorted(by: { $0.start < $1.start }) {
            let start = max(range.start, reached ?? range.start)
            if range.end > start { total += range.end.timeIntervalSince(start) }
            reached = max(reached ?? range.end, range.end)
        }
        return total
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
