import ApplianceProtocol

/// The document's named schemas: the JSON bodies the API answers with, as `ctl --json` prints them (snake_case,
/// ISO 8601 times). Each lists the fields a client can rely on; objects stay open, so a field added later is not a
/// breaking change.
enum APISchemas {
    typealias S = JSONSchema

    static var all: [String: JSONValue] {
        [
            "Error": S.object(
                [
                    "error": S.object(
                        [
                            "code": S.string("stable, e.g. bad_request, not_found, forbidden"),
                            "message": S.string("one line saying what is wrong"),
                        ], required: ["code", "message"])
                ],
                required: ["error"]),
            "Recording": recording,
            "RecordingPage": S.object(
                [
                    "items": S.array(S.ref("Recording")), "total": count, "page": S.integer(min: 1),
                    "per_page": S.integer(min: 1, max: 1000), "pages": count, "elapsed_ms": S.number(min: 0),
                ],
                required: ["items", "total", "page", "per_page", "pages"]),
            "Items": S.object(["items": S.array(S.object())], required: ["items"]),
            "Session": S.object(
                [
                    "access": S.string(values: ["session", "credential", "read_only", "anonymous"]),
                    "csrf": S.string(), "user": S.string(), "role": role,
                ], required: ["access"]),
            "Route": S.object(
                [
                    "method": S.string(), "path": S.string(),
                    "requires": S.string(values: ["anyone", "viewer", "admin", "command"]),
                ], required: ["method", "path", "requires"]),
            "Account": S.object(
                ["name": S.string(), "role": role, "created_at": S.moment, "tokens": count],
                required: ["name", "role"]),
            "Share": S.object(
                [
                    "id": S.string(pattern: "^[0-9a-f]{16}$"), "recording_id": S.string(), "title": S.string(),
                    "created_at": S.moment, "expires_at": S.moment,
                    "url": S.string("only when the link is made"), "token": S.string("only when the link is made"),
                ],
                required: ["id", "recording_id", "expires_at"]),
        ].merging(events) { first, _ in first }
    }

    /// The schemas of what happened and when: activity, the timeline, status, a protection.
    static var events: [String: JSONValue] {
        [
            "Activity": S.object(
                [
                    "id": S.integer(min: 1), "kind": S.string(values: Activity.Kind.allCases.map(\.rawValue)),
                    "label": S.string(), "camera": S.string(), "channel": S.string(), "started_at": S.moment,
                    "ended_at": S.moment,
                    "zones": S.array(S.string()), "clip": S.string(),
                ], required: ["id", "kind", "started_at"]),
            "Timeline": S.object(
                [
                    "from": S.moment, "to": S.moment, "spans": S.array(S.object()), "gaps": S.array(S.object()),
                    "locks": S.array(S.object()), "events": S.array(S.object()), "events_total": count,
                    "recorded_s": S.number(min: 0),
                ], required: ["from", "to", "spans", "gaps"]),
            "TimelineDays": S.object(
                [
                    "month": S.string(),
                    "days": S.array(
                        S.object(
                            [
                                "day": S.day, "recordings": count,
                                "events": count, "recorded_s": S.number(min: 0),
                            ],
                            required: ["day"])),
                ], required: ["month", "days"]),
            "Status": S.object(
                [
                    "state": S.string(), "ready": S.boolean(), "active_camera": S.string(),
                    "cameras": S.array(S.string()),
                    "uptime_s": S.number(min: 0), "recordings_total": count,
                    "channels": S.array(
                        S.object(
                            [
                                "name": S.string(), "state": S.string(), "recording_id": S.string(),
                                "cameras": S.array(S.string()), "active_camera": S.string(),
                            ], required: ["name", "state", "cameras"])),
                ], required: ["state", "cameras"]),
            "Protected": S.object(
                [
                    "from": S.moment, "to": S.moment, "locked": S.array(S.string()),
                    "already_deleted": S.array(S.string()),
                ], required: ["from", "to", "locked"]),
        ]
    }

    static let count = S.integer(min: 0)
    static let role = S.string(values: UserRole.allCases.map(\.rawValue))

    static let recording = S.object(
        [
            "id": S.string(), "title": S.string(), "state": S.string(), "camera": S.string(), "channel": S.string(),
            "created_at": S.moment,
            "started_at": S.moment, "ended_at": S.moment, "duration_ms": S.nullable(count),
            "size_bytes": S.nullable(count),
            "width": S.integer(), "height": S.integer(), "locked": S.boolean(),
            "backup_state": S.string(values: Recording.BackupState.allCases.map(\.rawValue)),
            "video_url": S.string(), "thumbnail_url": S.string(),
        ],
        required: ["id", "title", "state", "created_at"])
}
