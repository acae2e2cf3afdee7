import ApplianceProtocol

/// `POST /api/commands/{name}`: one operation per command, each with its own arguments (the socket's `args`,
/// checked by the same parser) and its own role (`Command.Name.needsAdmin`), so a client and a fuzzer see what each
/// takes. The router has the one route; `APIContractTests` holds the names here to `Command.Name`.
enum CommandOperations {
    typealias S = JSONSchema

    static let title = S.string("a clip's title")
    static let channel = S.string(
        "a [[channel]] name: only that channel (default: every channel)", minLength: 1, maxLength: 64)
    static let hours = S.number("how long the link works, 0.01 to 8760 h (default 24)", min: 0.01, max: 8760)
    static let clipID = S.string("a recording's id, or a prefix of it", pattern: "^[0-9a-fA-F-]{1,36}$")
    static let seconds = S.number(min: 0, max: 86_400)
    static let account = S.string("an account's name")
    static let password = S.string("the password")
    static let role = APISchemas.role
    static let activityID = JSONValue.object([
        "anyOf": .array([S.integer(min: 1), S.string(pattern: #"^0*[1-9][0-9]*$"#)])
    ])

    /// A JSON body of these arguments and no others (the parser refuses an unknown one). An optional argument may
    /// also be null, which the parser reads as absent.
    static func body(_ properties: [String: JSONValue], required: [String] = []) -> (type: String, schema: JSONValue) {
        let open = properties.reduce(into: [String: JSONValue]()) { result, pair in
            result[pair.key] = required.contains(pair.key) ? pair.value : S.nullable(pair.value)
        }
        return ("application/json", S.object(open, required: required, closed: true))
    }

    /// Each command: its arguments, which of them are required, and its result.
    static let arguments:
        [Command.Name: (summary: String, properties: [String: JSONValue], required: [String], result: JSONValue)] = [
            .ping: ("Is the daemon there", [:], [], S.object(["pong": S.boolean()], required: ["pong"])),
            .version: (
                "Its version and GStreamer's", [:], [],
                S.object(["version": S.string(), "gstreamer": S.string()], required: ["version"])
            ),
            .status: ("The daemon's state", [:], [], S.ref("Status")),
            .recordStart: (
                "Start recording (every channel, or the one named)", ["title": title, "channel": channel], [],
                S.object(["id": S.string(), "title": S.string()], required: ["id"])
            ),
            .recordStop: (
                "Stop recording; the finished clip", ["title": title, "channel": channel], [],
                S.object(["id": S.string()], required: ["id"])
            ),
            .recordToggle: (
                "Start or stop", ["title": title, "channel": channel], [],
                S.object(["started": S.object(), "stopped": S.object()])
            ),
            .snapshot: (
                "A JPEG of the live picture (20 a minute; the first channel's, or the one named)", ["channel": channel],
                [], S.object(["id": S.string()], required: ["id"])
            ),
            .list: (
                "A page of recordings", listArguments, [],
                S.object(["items": S.array(S.ref("Recording"))], required: ["items"])
            ),
            .info: ("One recording", ["id": clipID], ["id"], S.ref("Recording")),
            .rename: ("Rename a recording", ["id": clipID, "title": title], ["id", "title"], S.ref("Recording")),
            .delete: (
                "Delete a recording", ["id": clipID, "force": S.boolean("also a locked one")], ["id"], S.object()
            ),
            .lock: ("Keep a recording from retention", ["id": clipID], ["id"], S.ref("Recording")),
            .unlock: ("Let retention delete it again", ["id": clipID], ["id"], S.ref("Recording")),
            .cameras: ("The cameras", [:], [], S.object(["cameras": S.array(S.object())], required: ["cameras"])),
            .discoverCameras: (
                "Look for ONVIF cameras on the network",
                ["username": S.string(), "password": S.string(), "seconds": S.number(min: 0.5, max: 30)], [],
                S.object(["cameras": S.array(S.object())], required: ["cameras"])
            ),
            .switchCamera: (
                "Switch to a camera by name (in its channel), or the next in a channel (default: the first)",
                ["camera": S.string(), "next": S.boolean(), "channel": channel], [], S.object()
            ),
            .play: (
                "Play a file or a chime on the speaker",
                ["file": S.string(minLength: 1), "chime": S.string(values: SpeakerChime.allCases.map(\.rawValue))], [],
                S.object()
            ),
            .backupStatus: ("The backup queue", [:], [], S.object(["enabled": S.boolean()], required: ["enabled"])),
            .backupRetry: ("Retry failed uploads (one, or all)", ["id": clipID], [], S.object()),
            .protect: (
                "Lock what was recorded around now", ["before_s": seconds, "after_s": seconds], [], S.ref("Protected")
            ),
            .export: (
                "One clip of a range or of a loop recording's group",
                [
                    "from": S.moment, "to": S.moment, "camera": S.string(), "group": S.string(), "title": title,
                    "channel": channel,
                ], [],
                S.object(["recording": S.ref("Recording")], required: ["recording"])
            ),
            .metrics: (
                "The metrics as JSON", [:], [], S.object(["families": S.array(S.object())], required: ["families"])
            ),
            .share: ("A share link for a recording", ["id": clipID, "hours": hours], ["id"], S.ref("Share")),
            .shares: ("The share links", [:], [], S.object(["items": S.array(S.ref("Share"))], required: ["items"])),
            .unshare: (
                "End a share link, by its token or its id (one of them)", ["token": S.string(), "id": S.string()], [],
                S.object(["id": S.string(), "revoked": S.boolean()], required: ["id", "revoked"])
            ),
            .activity: (
                "Activity, newest first", activityArguments, [],
                S.object(["items": S.array(S.ref("Activity"))], required: ["items"])
            ),
            .activityShow: (
                "One activity and the recordings that cover it", ["id": activityID], ["id"],
                S.object(["activity": S.ref("Activity")], required: ["activity"])
            ),
            .activityMark: (
                "Mark a moment (an external event)",
                [
                    "label": S.string(minLength: 1, maxLength: ActivityMark.maxLabelLength), "at": S.moment,
                    "duration_s": seconds,
                ], ["label"],
                S.ref("Activity")
            ),
            .activityProtect: ("Lock what an activity recorded", ["id": activityID], ["id"], S.ref("Protected")),
            .timeline: (
                "A day's or a range's spans and gaps",
                ["day": S.day, "from": S.moment, "to": S.moment, "channel": channel], [],
                S.ref("Timeline")
            ),
            .timelineDays: (
                "A month's days", ["month": S.string(pattern: #"^[0-9]{4}-[0-9]{2}$"#)], ["month"],
                S.ref("TimelineDays")
            ),
            .users: ("The accounts", [:], [], S.object(["items": S.array(S.ref("Account"))], required: ["items"])),
            .userAdd: (
                "Add an account", ["name": account, "role": role, "password": password], ["name", "role", "password"],
                S.ref("Account")
            ),
            .userPassword: (
                "Set an account's password", ["name": account, "password": password], ["name", "password"],
                S.ref("Account")
            ),
            .userRole: ("Set an account's role", ["name": account, "role": role], ["name", "role"], S.ref("Account")),
            .userRemove: (
                "Remove an account", ["name": account], ["name"],
                S.object(["name": S.string(), "removed": S.boolean()], required: ["name"])
            ),
            .userToken: (
                "A new API token for an account (shown once)", ["name": account], ["name"],
                S.object(["name": S.string(), "token": S.string()], required: ["name", "token"])
            ),
            .userRevokeTokens: ("Revoke an account's API tokens", ["name": account], ["name"], S.ref("Account")),
        ]

    static let listArguments: [String: JSONValue] = [
        "page": S.integer(min: Command.pages.lowerBound, max: Command.pages.upperBound),
        "per_page": S.integer(min: Command.perPageRange.lowerBound, max: Command.perPageRange.upperBound),
        "grouped": S.boolean(), "group": S.string(), "search": S.string(maxLength: 200), "from": S.moment,
        "to": S.moment, "channel": S.string(maxLength: 64),
    ]

    static let activityArguments: [String: JSONValue] = [
        "kind": S.string("one kind or several, comma-separated"),
        "label": S.string(maxLength: ActivityMark.maxLabelLength),
        "day": S.day, "from": S.moment, "to": S.moment, "limit": S.integer(min: 1, max: ActivityFilter.maxLimit),
        "channel": S.string(minLength: 1, maxLength: 64),
    ]

    static var all: [APIOperation] {
        Command.Name.allCases.compactMap { name in
            guard let command = arguments[name] else { return nil }
            return APIOperation(
                method: .post, path: "/api/commands/\(name.rawValue)", summary: command.summary,
                body: body(command.properties, required: command.required), replies: [.json(command.result)],
                errors: [404, 409, 429], commandRole: name.needsAdmin ? .admin : .viewer)
        }
    }
}
