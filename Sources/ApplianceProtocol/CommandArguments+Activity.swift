import Foundation

/// The `activity.*` commands' arguments.
extension Command {
    /// `activity`: `kind` (one kind or several, comma-separated), `label` (an object's, e.g. `person`), `day`
    /// (`2026-11-26`, the daemon's local day) or
    /// `from`/`to` (ISO 8601), `limit` (1…1000).
    static func activityFilter(_ args: Arguments) throws(ApplianceError) -> ActivityFilter {
        try args.only(["kind", "label", "day", "from", "to", "limit", "channel"])
        var filter = ActivityFilter()
        filter.channel = try args.channelName()
        if let kinds = try args.string("kind") {
            for name in kinds.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let kind = Activity.Kind(rawValue: name) else {
                    let known = Activity.Kind.allCases.map(\.rawValue).joined(separator: ", ")
                    throw ApplianceError(.badRequest, "args.kind: unknown kind \"\(name)\" (known: \(known))")
                }
                if !filter.kinds.contains(kind) { filter.kinds.append(kind) }
            }
        }
        if let label = try args.string("label")?.trimmingCharacters(in: .whitespaces), !label.isEmpty {
            guard label.count <= ActivityMark.maxLabelLength else {
                throw ApplianceError(
                    .badRequest, "args.label must be at most \(ActivityMark.maxLabelLength) characters")
            }
            filter.label = label
        }
        if let limit = try args.int("limit", in: 1...ActivityFilter.maxLimit) { filter.limit = limit }
        (filter.from, filter.to) = (try args.date("from"), try args.date("to"))
        if let day = try args.string("day") {
            guard filter.from == nil, filter.to == nil else {
                throw ApplianceError(.badRequest, "activity takes args.day or args.from/to, not both")
            }
            guard let range = Self.localDay(day) else {
                throw ApplianceError(.badRequest, "args.day must be a day such as 2026-11-26, found \"\(day)\"")
            }
            (filter.from, filter.to) = (range.start, range.end)
        }
        if let from = filter.from, let to = filter.to, from >= to {
            throw ApplianceError(.badRequest, "activity: args.from must be before args.to")
        }
        return filter
    }

    /// `activity.mark`: `label` (required, up to 200 characters), `at` (ISO 8601; now if absent), `duration_s`.
    static func activityMark(_ args: Arguments) throws(ApplianceError) -> ActivityMark {
        try args.only(["label", "at", "duration_s"])
        let label = try args.requiredString("label").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !label.isEmpty else { throw ApplianceError(.badRequest, "args.label must not be empty") }
        guard label.count <= ActivityMark.maxLabelLength, !label.contains(where: \.isNewline) else {
            throw ApplianceError(
                .badRequest, "args.label must be one line of at most \(ActivityMark.maxLabelLength) characters")
        }
        return ActivityMark(label: label, at: try args.date("at"), durationS: try args.seconds("duration_s"))
    }

    /// A calendar day in the local time zone: [its midnight, the next midnight).
    public static func localDay(_ text: String) -> (start: Date, end: Date)? {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, text.count == 10 else { return nil }
        let calendar = Calendar.current
        let components = DateComponents(year: parts[0], month: parts[1], day: parts[2])
        guard components.isValidDate(in: calendar), let start = calendar.date(from: components),
            let end = calendar.date(byAdding: .day, value: 1, to: start)
        else { return nil }
        return (start, end)
    }

    /// The local day of `date` in the form `localDay` reads (`2026-11-26`).
    public static func dayText(_ date: Date) -> String {
        let c = Calendar.current.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", c.year ?? 1970, c.month ?? 1, c.day ?? 1)
    }

    static func arguments(_ filter: ActivityFilter) -> [String: JSONValue] {
        var args: [String: JSONValue] = [:]
        if !filter.kinds.isEmpty { args["kind"] = .string(filter.kinds.map(\.rawValue).joined(separator: ",")) }
        if let label = filter.label { args["label"] = .string(label) }
        if let from = filter.from { args["from"] = .string(Timestamps.iso(from)) }
        if let to = filter.to { args["to"] = .string(Timestamps.iso(to)) }
        if filter.limit != ActivityFilter.defaultLimit { args["limit"] = .int(filter.limit) }
        if let channel = filter.channel { args["channel"] = .string(channel) }
        return args
    }
}

extension Arguments {
    /// An activity's number: a positive integer (a string of digits is taken too, as `ctl` passes what it was given).
    func activityID() throws(ApplianceError) -> Int64 {
        switch values["id"] {
        case .int(let number)? where number > 0: return Int64(number)
        case .string(let text)?:
            guard let number = Int64(text), number > 0 else {
                throw ApplianceError(
                    .badRequest, "args.id must be an activity number such as 12, found \"\(text.prefix(40))\"")
            }
            return number
        case nil, .null?: throw ApplianceError(.badRequest, "args.id is required")
        default: throw ApplianceError(.badRequest, "args.id must be an activity number such as 12")
        }
    }
}
