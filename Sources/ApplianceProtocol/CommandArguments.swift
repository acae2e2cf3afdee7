import Foundation

/// A command's wire form: the name and the `args` object, checked strictly (an unknown argument is a typo, a value
/// of the wrong type is refused, never guessed at), so that every error names what is wrong.
extension Command {
    /// Builds a command from its wire name and arguments; `bad_request` or `unknown_command` otherwise.
    public init(name: String, arguments: [String: JSONValue]) throws(ApplianceError) {
        let args = Arguments(command: name, values: arguments)
        if let plain = Self.withoutArguments[name] {
            try args.only([])
            self = plain
            return
        }
        switch name {
        case "record.start", "record.stop", "record.toggle":
            try args.only(["title"])
            let title = try args.string("title")
            self = name == "record.start" ? .recordStart(title: title) : name == "record.stop" ? .recordStop(title: title) : .recordToggle(title: title)
        case "list":
            try args.only(["page", "per_page", "grouped", "group", "search", "from", "to"])
            let page = try args.int("page") ?? 1, perPage = try args.int("per_page") ?? Self.defaultPerPage
            let filter = ListFilter(search: try args.string("search"), from: try args.date("from"), to: try args.date("to"))
            if let search = filter.search, search.count > 200 { throw ApplianceError(.badRequest, "args.search is longer than 200 characters") }
            if !filter.isEmpty {
                guard try args.string("group") == nil, try args.bool("grouped") != true else {
                    throw ApplianceError(.badRequest, "list takes args.search/from/to, or args.group/grouped, not both")
                }
                self = .listFiltered(filter, page: page, perPage: perPage)
                return
            }
            switch (try args.string("group"), try args.bool("grouped") ?? false) {
            case (let group?, false): self = .listSegments(group: group, page: page, perPage: perPage)
            case (nil, true): self = .listGrouped(page: page, perPage: perPage)
            case (nil, false): self = .list(page: page, perPage: perPage)
            case (_?, true): throw ApplianceError(.badRequest, "list takes args.group or args.grouped, not both")
            }
        case "info":
            try args.only(["id"])
            self = .info(id: try args.requiredString("id"))
        case "rename":
            try args.only(["id", "title"])
            self = .rename(id: try args.requiredString("id"), title: try args.requiredString("title"))
        case "delete":
            try args.only(["id", "force"])
            self = .delete(id: try args.requiredString("id"), force: try args.bool("force") ?? false)
        case "lock", "unlock":
            try args.only(["id"])
            let id = try args.requiredString("id")
            self = name == "lock" ? .lock(id: id) : .unlock(id: id)
        case "switch":
            try args.only(["camera", "next"])
            let camera = try args.string("camera"), next = try args.bool("next") ?? false
            switch (camera, next) {
            case (let camera?, false): self = .switchCamera(.named(camera))
            case (nil, true): self = .switchCamera(.next)
            default: throw ApplianceError(.badRequest, "switch needs either args.camera (a name) or args.next = true")
            }
        case "backup.retry":
            try args.only(["id"])
            self = .backupRetry(id: try args.string("id"))
        case "export":
            try args.only(["from", "to", "camera", "group", "title"])
            let request = ExportRequest(from: try args.date("from"), to: try args.date("to"), camera: try args.string("camera"),
                                        group: try args.string("group"), title: try args.string("title"))
            switch (request.group, request.from, request.to) {
            case (_?, nil, nil): break
            case (nil, let from?, let to?):
                guard from < to else { throw ApplianceError(.badRequest, "export: args.from must be before args.to") }
            default: throw ApplianceError(.badRequest, "export needs either args.group or both args.from and args.to")
            }
            self = .export(request)
        case "protect":
            try args.only(["before_s", "after_s"])
            let before = try args.seconds("before_s") ?? Self.defaultProtectWindow
            let after = try args.seconds("after_s") ?? Self.defaultProtectWindow
            self = .protect(before: before, after: after)
        case "share":
            try args.only(["id", "hours"])
            let id = try args.requiredString("id")
            let hours = try args.number("hours")
            if let hours, !(0.01...8760).contains(hours) {
                throw ApplianceError(.badRequest, "args.hours must be between 0.01 and 8760, found \(hours)")
            }
            self = .share(id: id, hours: hours)
        case "unshare":
            try args.only(["token"])
            self = .unshare(token: try args.requiredString("token"))
        default:
            throw ApplianceError(.unknownCommand, "unknown command \"\(name)\" (known: \(Self.names.joined(separator: ", ")))")
        }
    }

    /// Commands that take no arguments, by wire name.
    static let withoutArguments: [String: Command] = [
        "ping": .ping, "status": .status, "snapshot": .snapshot, "cameras": .cameras, "backup.status": .backupStatus,
        "metrics": .metrics, "shares": .shares,
    ]

    /// The `args` object a client sends for this command.
    public var arguments: [String: JSONValue] {
        switch self {
        case .ping, .status, .snapshot, .cameras, .backupStatus, .metrics, .shares: [:]
        case .share(let id, let hours): hours.map { ["id": .string(id), "hours": .double($0)] } ?? ["id": .string(id)]
        case .unshare(let token): ["token": .string(token)]
        case .recordStart(let title), .recordStop(let title), .recordToggle(let title): title.map { ["title": .string($0)] } ?? [:]
        case .list(let page, let perPage): ["page": .int(page), "per_page": .int(perPage)]
        case .listGrouped(let page, let perPage): ["page": .int(page), "per_page": .int(perPage), "grouped": .bool(true)]
        case .listSegments(let group, let page, let perPage): ["page": .int(page), "per_page": .int(perPage), "group": .string(group)]
        case .listFiltered(let filter, let page, let perPage):
            [("search", filter.search.map(JSONValue.string)), ("from", filter.from.map { JSONValue.string(Timestamps.iso($0)) }),
             ("to", filter.to.map { JSONValue.string(Timestamps.iso($0)) })]
                .reduce(into: ["page": .int(page), "per_page": .int(perPage)]) { args, pair in if let value = pair.1 { args[pair.0] = value } }
        case .info(let id), .lock(let id), .unlock(let id): ["id": .string(id)]
        case .rename(let id, let title): ["id": .string(id), "title": .string(title)]
        case .delete(let id, let force): ["id": .string(id), "force": .bool(force)]
        case .switchCamera(.named(let camera)): ["camera": .string(camera)]
        case .switchCamera(.next): ["next": .bool(true)]
        case .backupRetry(let id): id.map { ["id": .string($0)] } ?? [:]
        case .protect(let before, let after): ["before_s": .double(before), "after_s": .double(after)]
        case .export(let r):
            [("from", r.from.map { JSONValue.string(Timestamps.iso($0)) }), ("to", r.to.map { .string(Timestamps.iso($0)) }),
             ("camera", r.camera.map(JSONValue.string)), ("group", r.group.map(JSONValue.string)), ("title", r.title.map(JSONValue.string))]
                .reduce(into: [:]) { args, pair in if let value = pair.1 { args[pair.0] = value } }
        }
    }
}

/// Typed reads of a request's `args`; each failure is a `bad_request` naming the argument.
struct Arguments {
    let command: String
    let values: [String: JSONValue]

    /// Rejects arguments the command does not know (catches typos such as "titel").
    func only(_ keys: Set<String>) throws(ApplianceError) {
        if let unknown = values.keys.sorted().first(where: { !keys.contains($0) }) {
            throw ApplianceError(.badRequest, "unknown argument \"\(unknown)\" for \(command)")
        }
    }

    func string(_ key: String) throws(ApplianceError) -> String? {
        switch values[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        default: throw ApplianceError(.badRequest, "args.\(key) must be a string")
        }
    }

    func requiredString(_ key: String) throws(ApplianceError) -> String {
        guard let value = try string(key) else { throw ApplianceError(.badRequest, "args.\(key) is required") }
        return value
    }

    /// A JSON number without a fraction; `true` is not a number.
    func int(_ key: String) throws(ApplianceError) -> Int? {
        switch values[key] {
        case nil, .null?: return nil
        case .int(let number)?: return number
        default: throw ApplianceError(.badRequest, "args.\(key) must be an integer")
        }
    }

    /// A moment: an ISO 8601 string (`2026-11-22T03:00:00Z`, with or without fractional seconds).
    func date(_ key: String) throws(ApplianceError) -> Date? {
        guard let text = try string(key) else { return nil }
        guard let date = Timestamps.date(iso: text) else {
            throw ApplianceError(.badRequest, "args.\(key) must be an ISO 8601 date and time such as 2026-11-22T03:00:00Z, found \"\(text)\"")
        }
        return date
    }

    /// Any JSON number.
    func number(_ key: String) throws(ApplianceError) -> Double? {
        switch values[key] {
        case nil, .null?: return nil
        case .int(let number)?: return Double(number)
        case .double(let number)?: return number
        default: throw ApplianceError(.badRequest, "args.\(key) must be a number")
        }
    }

    /// A duration in seconds: a number from 0 to one day.
    func seconds(_ key: String) throws(ApplianceError) -> Double? {
        let value: Double
        switch values[key] {
        case nil, .null?: return nil
        case .int(let number)?: value = Double(number)
        case .double(let number)?: value = number
        default: throw ApplianceError(.badRequest, "args.\(key) must be a number of seconds")
        }
        guard value.isFinite, (0...86_400).contains(value) else {
            throw ApplianceError(.badRequest, "args.\(key) must be between 0 and 86400 seconds, found \(value)")
        }
        return value
    }

    func bool(_ key: String) throws(ApplianceError) -> Bool? {
        switch values[key] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        default: throw ApplianceError(.badRequest, "args.\(key) must be true or false")
        }
    }
}
