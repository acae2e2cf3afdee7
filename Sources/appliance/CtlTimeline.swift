import ApplianceBase
import ApplianceProtocol
import ArgumentParser
import Foundation

/// `ctl timeline`: a day at a glance in text: recorded spans, gaps and activity in time order.
struct TimelineCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timeline", abstract: "A day at a glance: what was recorded, the gaps, and what happened.")
    @OptionGroup var options: CtlOptions
    @Option(name: .long, help: "The day (2026-11-26, local time; default today).") var day: String?
    @Option(name: .long, help: "Or from: ISO 8601 or local \"2026-11-26 14:00\" (with --to; at most 7 days).") var from:
        String?
    @Option(name: .long, help: "To, in the same forms.") var to: String?
    @Option(name: .long, help: "Or a month (2026-11): the days with recordings or events.") var month: String?
    @Option(name: .long, help: "Only this channel ([[channel]] name).") var channel: String?

    func run() {
        if let month {
            guard day == nil, from == nil, to == nil, channel == nil else {
                fail("--month lists a month's days; it cannot go with --day, --from, --to or --channel")
            }
            let command: Command
            do {
                command = try Command(name: "timeline.days", arguments: ["month": .string(month)])
            } catch {
                fail(error.message)
            }
            options.perform(command) { (days: TimelineDays) in TimelineText.render(days) }
            return
        }
        var args: [String: JSONValue] = [:]
        for (key, text) in [("from", from), ("to", to)] {
            guard let text else { continue }
            guard let date = Export.date(text) else {
                fail("--\(key): \"\(text)\" is not a date and time (2026-11-26T14:00:00Z or \"2026-11-26 14:00\")")
            }
            args[key] = .string(Timestamps.iso(date))
        }
        if let day { args["day"] = .string(day) } else if args.isEmpty { args["day"] = .string(TimelineText.today()) }
        if let channel { args["channel"] = .string(channel) }
        let command: Command
        do {
            command = try Command(name: "timeline", arguments: args)
        } catch {
            fail(error.message)
        }
        options.perform(command) { (t: Timeline) in TimelineText.render(t) }
    }
}

/// A timeline as lines: a summary, then spans, gaps and activity in time order.
enum TimelineText {
    static func today() -> String { Command.dayText(Date()) }

    /// One line per day with recordings or events.
    static func render(_ d: TimelineDays) -> String {
        guard !d.days.isEmpty else { return "\(d.month): nothing recorded and no events" }
        let total = d.days.reduce(0) { $0 + $1.recordedS }
        return
            ([
                """
                \(d.month): \(length(total)) recorded on \(d.days.filter { $0.recordings > 0 }.count) day(s), \
                \(d.days.reduce(0) { $0 + $1.events }) event(s)
                """
            ]
            + d.days.map { day in
                """
                \(day.day)  \(length(day.recordedS)) in \(day.recordings) \
                recording(s)\(day.locked > 0 ? ", \(day.locked) locked" : "")  \(day.events) event(s)
                """
            }).joined(separator: "\n")
    }

    static func render(_ t: Timeline) -> String {
        let gapS = t.gaps.reduce(0) { $0 + $1.end.timeIntervalSince($1.start) }
        var lines = [
            "\(localDate(t.from)) – \(localDate(t.to)): \(length(t.recordedS)) recorded in \(t.spans.count) span(s), "
                + "\(t.gaps.count) gap(s) (\(length(gapS))), \(t.eventsTotal) event(s)"
                + (t.eventsTotal > t.events.count ? " (the newest \(t.events.count) shown)" : "")
        ]
        var entries: [(Date, String)] = []
        let severalChannels = Set(t.spans.map(\.channel)).count > 1
        for s in t.spans {
            let what = s.group != nil ? "loop, \(s.recordings) segment(s)" : "\(s.recordings) clip(s)"
            let extra =
                (severalChannels ? "  channel \(s.channel ?? "?")" : "")
                + (s.cameras.isEmpty ? "" : "  \(s.cameras.joined(separator: ", "))")
                + (s.locked > 0 ? "  \(s.locked) locked" : "")
                + (s.live ? "  recording now" : "")
            entries.append(
                (
                    s.start,
                    """
                    SPAN   \(clock(s.start))–\(clock(s.end))  \(length(s.end.timeIntervalSince(s.start)))  \
                    \(what)\(extra)  first \(s.firstId.prefix(8))
                    """
                ))
        }
        for g in t.gaps {
            entries.append(
                (g.start, "GAP    \(clock(g.start))–\(clock(g.end))  \(length(g.end.timeIntervalSince(g.start)))"))
        }
        for a in t.events {
            let detail = ActivityText.detail(a)
            entries.append(
                (
                    a.startedAt,
                    """
                    EVENT  \(clock(a.startedAt))  \(a.kind.rawValue)  #\(a.id)  \
                    \(a.durationS.map { length($0) } ?? "going on")
                    """
                        + (detail.isEmpty ? "" : "  \(detail)")
                ))
        }
        lines += entries.enumerated().sorted { ($0.element.0, $0.offset) < ($1.element.0, $1.offset) }.map(\.element.1)
        return lines.joined(separator: "\n")
    }

    /// Local time of day, to the second.
    static func clock(_ date: Date) -> String {
        let c = Calendar.current.dateComponents([.hour, .minute, .second], from: date)
        return String(format: "%02d:%02d:%02d", c.hour!, c.minute!, c.second!)
    }

    /// "4 h 02 min", "3 min 20 s", "12.5 s".
    static func length(_ seconds: Double) -> String {
        let s = Int(seconds.rounded())
        if s >= 3600 { return String(format: "%d h %02d min", s / 3600, s / 60 % 60) }
        if s >= 60 { return String(format: "%d min %02d s", s / 60, s % 60) }
        return String(format: "%.1f s", seconds)
    }
}
