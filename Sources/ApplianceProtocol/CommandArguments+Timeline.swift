import Foundation

/// The `timeline` command's arguments.
extension Command {
    /// `day` (`2026-11-26`, the daemon's local day) or `from` and `to` (ISO 8601, at most 7 days apart).
    static func timelineRange(_ args: Arguments) throws(ApplianceError) -> (from: Date, to: Date) {
        try args.only(["day", "from", "to"])
        if let day = try args.string("day") {
            guard try args.date("from") == nil, try args.date("to") == nil else {
                throw ApplianceError(.badRequest, "timeline takes args.day or args.from and args.to, not both")
            }
            guard let range = Self.localDay(day) else {
                throw ApplianceError(.badRequest, "args.day must be a day such as 2026-11-26, found \"\(day.prefix(40))\"")
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
}
