import Foundation

/// A command's wire form: the name and the `args` object, checked strictly (an unknown argument is a typo, a value
/// of the wrong type is refused, never guessed at), so that every error names what is wrong.
extension Command {
    /// Builds a command from its wire name and arguments; `bad_request` or `unknown_command` otherwise.
    public init(name: String, arguments: [String: JSONValue]) throws(ApplianceError) {
        guard let wireName = Name(rawValue: name) else {
            throw ApplianceError(
                .unknownCommand, "unknown command \"\(name)\" (known: \(Self.names.joined(separator: ", ")))")
        }
        let args = Arguments(command: name, values: arguments)
        switch wireName {
        case .ping: self = try args.none(.ping)
        case .version: self = try args.none(.version)
        case .status: self = try args.none(.status)
        case .snapshot:
            try args.only(["channel"])
            self = .snapshot(channel: try args.channelName())
        case .cameras: self = try args.none(.cameras)
        case .backupStatus: self = try args.none(.backupStatus)
        case .metrics: self = try args.none(.metrics)
        case .shares: self = try args.none(.shares)
        case .recordStart:
            let (title, channel) = try args.titleAndChannel()
            self = .recordStart(title: title, channel: channel)
        case .recordStop:
            let (title, channel) = try args.titleAndChannel()
            self = .recordStop(title: title, channel: channel)
        case .recordToggle:
            let (title, channel) = try args.titleAndChannel()
            self = .recordToggle(title: title, channel: channel)
        case .list: self = try Self.list(args)
        case .info, .lock, .unlock: self = try Self.clip(wireName, args)
        case .rename:
            try args.only(["id", "title"])
            self = .rename(id: try args.requiredString("id"), title: try args.requiredString("title"))
        case .delete:
            try args.only(["id", "force"])
            self = .delete(id: try args.requiredString("id"), force: try args.bool("force") ?? false)
        case .switchCamera: self = try Self.switchCamera(args)
        case .discoverCameras: self = try Self.discoverCameras(args)
        case .play: self = try Self.play(args)
        case .backupRetry:
            try args.only(["id"])
            self = .backupRetry(id: try args.string("id"))
        case .export: self = try Self.export(args)
        case .protect:
            try args.only(["before_s", "after_s"])
            self = .protect(
                before: try args.seconds("before_s") ?? Self.defaultProtectWindow,
                after: try args.seconds("after_s") ?? Self.defaultProtectWindow)
        case .share: self = try Self.share(args)
        case .unshare:
            try args.only(["token", "id"])
            switch (try args.string("token"), try args.string("id")) {
            case (let link?, nil), (nil, let link?): self = .unshare(link: link)
            default:
                throw ApplianceError(
                    .badRequest, "unshare needs args.token (the link's) or args.id (as listed), one of them")
            }
        case .activity: self = .activity(try Self.activityFilter(args))
        case .activityShow:
            try args.only(["id"])
            self = .activityShow(id: try args.activityID())
        case .activityMark: self = .activityMark(try Self.activityMark(args))
        case .activityProtect:
            try args.only(["id"])
            self = .activityProtect(id: try args.activityID())
        case .timeline, .timelineDays: self = try Self.timeline(wireName, args)
        case .users, .userAdd, .userPassword, .userRole, .userRemove, .userToken, .userRevokeTokens:
            self = try Self.account(wireName, args)
        }
    }

    /// `cameras.discover`: an optional camera account and how long to listen (0.5 to 30 s).
    private static func discoverCameras(_ args: Arguments) throws(ApplianceError) -> Command {
        try args.only(["username", "password", "seconds"])
        let seconds = try args.seconds("seconds") ?? CameraDiscoveryRequest.defaultSeconds
        guard (0.5...30).contains(seconds) else {
            throw ApplianceError(.badRequest, "cameras.discover: seconds must be 0.5 to 30, got \(seconds)")
        }
        return .discoverCameras(
            CameraDiscoveryRequest(
                username: try args.string("username"), password: try args.string("password").map(Secret.init),
                seconds: seconds))
    }

    /// `list` and its views: filtered (search/from/to), grouped, one group's segments, or plain.
    private static func list(_ args: Arguments) throws(ApplianceError) -> Command {
        try args.only(["page", "per_page", "grouped", "group", "search", "from", "to", "channel"])
        let page = try args.int("page", in: Self.pages) ?? 1
        let perPage = try args.int("per_page", in: Self.perPageRange) ?? Self.defaultPerPage
        let filter = ListFilter(
            search: try args.string("search"), from: try args.date("from"), to: try args.date("to"),
            channel: try args.channelName())
        if let search = filter.search, search.count > 200 {
            throw ApplianceError(.badRequest, "args.search is longer than 200 characters")
        }
        if !filter.isEmpty {
            guard try args.string("group") == nil, try args.bool("grouped") != true else {
                throw ApplianceError(
                    .badRequest, "list takes args.search/from/to/channel, or args.group/grouped, not both")
            }
            return .listFiltered(filter, page: page, perPage: perPage)
        }
        switch (try args.string("group"), try args.bool("grouped") ?? false) {
        case (let group?, false): return .listSegments(group: group, page: page, perPage: perPage)
        case (nil, true): return .listGrouped(page: page, perPage: perPage)
        case (nil, false): return .list(page: page, perPage: perPage)
        case (_?, true): throw ApplianceError(.badRequest, "list takes args.group or args.grouped, not both")
        }
    }

    private static func switchCamera(_ args: Arguments) throws(ApplianceError) -> Command {
        try args.only(["camera", "next", "channel"])
        switch (try args.string("camera"), try args.bool("next") ?? false, try args.string("channel")) {
        case (let camera?, false, nil): return .switchCamera(.named(camera))
        case (nil, true, let channel): return .switchCamera(.next(channel: channel))
        case (_?, false, _?):
            throw ApplianceError(
                .badRequest, "switch takes args.channel only with args.next (a camera's name says its channel)")
        default: throw ApplianceError(.badRequest, "switch needs either args.camera (a name) or args.next = true")
        }
    }

    private static func export(_ args: Arguments) throws(ApplianceError) -> Command {
        try args.only(["from", "to", "camera", "group", "title", "channel"])
        let request = ExportRequest(
            from: try args.date("from"), to: try args.date("to"), camera: try args.string("camera"),
            group: try args.string("group"), title: try args.string("title"), channel: try args.string("channel"))
        switch (request.group, request.from, request.to) {
        case (_?, nil, nil): break
        case (nil, let from?, let to?):
            guard from < to else { throw ApplianceError(.badRequest, "export: args.from must be before args.to") }
        default: throw ApplianceError(.badRequest, "export needs either args.group or both args.from and args.to")
        }
        return .export(request)
    }

    private static func share(_ args: Arguments) throws(ApplianceError) -> Command {
        try args.only(["id", "hours"])
        let id = try args.requiredString("id")
        let hours = try args.number("hours")
        if let hours, !(0.01...8760).contains(hours) {
            throw ApplianceError(.badRequest, "args.hours must be between 0.01 and 8760, found \(hours)")
        }
        return .share(id: id, hours: hours)
    }

    /// `info`, `lock` and `unlock`: a clip's `id` and nothing else.
    static func clip(_ name: Name, _ args: Arguments) throws(ApplianceError) -> Command {
        try args.only(["id"])
        let id = try args.requiredString("id")
        switch name {
        case .lock: return .lock(id: id)
        case .unlock: return .unlock(id: id)
        default: return .info(id: id)
        }
    }

    /// The `args` object a client sends for this command.
    public var arguments: [String: JSONValue] {
        switch self {
        case .ping, .version, .status, .cameras, .backupStatus, .metrics, .shares: [:]
        case .snapshot(let channel): Dictionary(compacting: [("channel", channel.map(JSONValue.string))])
        case .activity(let filter): Self.arguments(filter)
        case .activityShow(let id), .activityProtect(let id): ["id": .int(Int(id))]
        case .timeline(let from, let to, let channel):
            Dictionary(compacting: [
                ("from", .string(Timestamps.iso(from))), ("to", .string(Timestamps.iso(to))),
                ("channel", channel.map(JSONValue.string)),
            ])
        case .timelineDays(let month): ["month": .string(month)]
        case .activityMark(let mark):
            Dictionary(compacting: [
                ("label", .string(mark.label)), ("at", mark.at.map { .string(Timestamps.iso($0)) }),
                ("duration_s", mark.durationS.map(JSONValue.double)),
            ])
        case .share(let id, let hours): hours.map { ["id": .string(id), "hours": .double($0)] } ?? ["id": .string(id)]
        case .unshare(let link): [ShareLink.isID(link) ? "id" : "token": .string(link)]
        case .recordStart(let title, let channel), .recordStop(let title, let channel),
            .recordToggle(let title, let channel):
            Dictionary(compacting: [("title", title.map(JSONValue.string)), ("channel", channel.map(JSONValue.string))])
        case .list(let page, let perPage): ["page": .int(page), "per_page": .int(perPage)]
        case .listGrouped(let page, let perPage):
            ["page": .int(page), "per_page": .int(perPage), "grouped": .bool(true)]
        case .listSegments(let group, let page, let perPage):
            ["page": .int(page), "per_page": .int(perPage), "group": .string(group)]
        case .listFiltered(let filter, let page, let perPage):
            Dictionary(compacting: [
                ("page", .int(page)), ("per_page", .int(perPage)), ("search", filter.search.map(JSONValue.string)),
                ("from", filter.from.map { .string(Timestamps.iso($0)) }),
                ("to", filter.to.map { .string(Timestamps.iso($0)) }),
                ("channel", filter.channel.map(JSONValue.string)),
            ])
        case .info(let id), .lock(let id), .unlock(let id): ["id": .string(id)]
        case .rename(let id, let title): ["id": .string(id), "title": .string(title)]
        case .delete(let id, let force): ["id": .string(id), "force": .bool(force)]
        case .switchCamera(.named(let camera)): ["camera": .string(camera)]
        case .switchCamera(.next(let channel)):
            Dictionary(compacting: [("next", .bool(true)), ("channel", channel.map(JSONValue.string))])
        case .discoverCameras(let r):
            Dictionary(compacting: [
                ("username", r.username.map(JSONValue.string)), ("password", r.password.map { .string($0.text) }),
                ("seconds", .double(r.seconds)),
            ])
        case .play(let r): r.chime.map { ["chime": .string($0.rawValue)] } ?? ["file": .string(r.file ?? "")]
        case .backupRetry(let id): id.map { ["id": .string($0)] } ?? [:]
        case .protect(let before, let after): ["before_s": .double(before), "after_s": .double(after)]
        case .users: [:]
        case .userAdd(let name, let role, let password):
            ["name": .string(name), "role": .string(role.rawValue), "password": .string(password.text)]
        case .userPassword(let name, let password): ["name": .string(name), "password": .string(password.text)]
        case .userRole(let name, let role): ["name": .string(name), "role": .string(role.rawValue)]
        case .userRemove(let name), .userToken(let name), .userRevokeTokens(let name): ["name": .string(name)]
        case .export(let r):
            Dictionary(compacting: [
                ("from", r.from.map { .string(Timestamps.iso($0)) }), ("to", r.to.map { .string(Timestamps.iso($0)) }),
                ("camera", r.camera.map(JSONValue.string)), ("group", r.group.map(JSONValue.string)),
                ("title", r.title.map(JSONValue.string)), ("channel", r.channel.map(JSONValue.string)),
            ])
        }
    }
}

/// Typed reads of a request's `args`; each failure is a `bad_request` naming the argument.
struct Arguments {
    let command: String
    let values: [String: JSONValue]

    /// A command that takes no arguments, once none were given.
    func none(_ command: Command) throws(ApplianceError) -> Command {
        try only([])
        return command
    }

    /// `record.*`: an optional title and nothing else.
    /// `channel`: a `[[channel]]` name (1 to 64 characters), or absent.
    func channelName() throws(ApplianceError) -> String? {
        guard let channel = try string("channel") else { return nil }
        guard !channel.isEmpty, channel.count <= 64 else {
            throw ApplianceError(.badRequest, "args.channel must be a channel's name (1 to 64 characters)")
        }
        return channel
    }

    /// The record commands' arguments: a title, and the one channel they act on (none: every channel).
    func titleAndChannel() throws(ApplianceError) -> (title: String?, channel: String?) {
        try only(["title", "channel"])
        return (try string("title"), try channelName())
    }

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

    /// A whole number within `range`; one outside is refused naming the argument and the range.
    func int(_ key: String, in range: ClosedRange<Int>) throws(ApplianceError) -> Int? {
        guard let number = try int(key) else { return nil }
        guard range.contains(number) else {
            throw ApplianceError(
                .badRequest, "args.\(key) must be between \(range.lowerBound) and \(range.upperBound), found \(number)")
        }
        return number
    }

    /// A moment: an ISO 8601 string (`2026-11-22T03:00:00Z`, with or without fractional seconds).
    func date(_ key: String) throws(ApplianceError) -> Date? {
        guard let text = try string(key) else { return nil }
        guard let date = Timestamps.date(iso: text) else {
            throw ApplianceError(
                .badRequest,
                "args.\(key) must be an ISO 8601 date and time such as 2026-11-22T03:00:00Z, found \"\(text)\"")
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
