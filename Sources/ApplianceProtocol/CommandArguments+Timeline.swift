import Foundation

/// The `timeline` command's arguments.
extension Command {
    /// `timeline` (a range) or `timeline.days` (a month).
    static func timeline(_ wireName: Name, _ args: Arguments) throws(ApplianceError) -> Command {
        if wireName == .timelineDays { return .timelineDays(month: try timelineMonth(args)) }
        let range = try timelineRange(args)
        return .timeline(from: range.from, to: range.to, channel: try args.channelName())
    }

    /// `day` (`2026-11-26`, the daemon's local day) or `from` and `to` (ISO 8601, at most 7 days apart).
    static func timelineRange(_ args: Arguments) throws(ApplianceError) -> (from: Date, to: Date) {
        try args.only(["day", "from", "to", "channel"])
        if let day = try args.string("day") {
            guard try args.date("from") == nil, try args.date("to") == nil else {
                throw ApplianceError(.badRequest, "timeline takes args.day or args.from and args.to, not both")
            }
            guard let range = Self.localDay(day) else {
                throw ApplianceError(
                    .badRequest, "args.day must be a day such as 2026-11-26, found \"\(day.prefix(40))\"")
            }
            return (range.start, range.end)
        }
        guard let from = try args.date("from"), let to = try args.date("to") else {
            throw ApplianceError(.badRequest, "timeline needs args.day, or args.from and args.to")
        }
        guard from < to else { throw ApplianceError(.badRequest, "timeline: args.from must be before args.to") }
        guard to.timeIntervalSince(from) <= Timeline.maxRangeS else {
            throw ApplianceError(.badRequest, "timeline: at most 7 days at once")
        }
        return (from, to)
    }

    /// `timeline.days`: `month` (`2026-11`).
    static func timelineMonth(_ args: Arguments) throws(ApplianceError) -> String {
        try args.only(["month"])
        guard let month = try args.string("month") else {
            throw ApplianceError(.badRequest, "timeline.days needs args.month, such as 2026-11")
        }
        guard localMonth(month) != nil else {
            throw ApplianceError(
                .badRequest, "args.month must be a month such as 2026-11, found \"\(month.prefix(40))\"")
        }
        return month
    }

    /// The local month `2026-11` as [its first midnight, the next month's).
    public static func localMonth(_ text: String) -> (start: Date, end: Date)? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 2, text.count == 7,
            let range = localDay(String(format: "%04d-%02d-01", parts[0], parts[1])),
            let end = Calendar.current.date(byAdding: .month, value: 1, to: range.start)
        else { return nil }
        return (range.start, end)
    }
}
