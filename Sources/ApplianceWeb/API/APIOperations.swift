import ApplianceProtocol

/// Every route of the API and the media it serves, as the document describes it; the pages (HTML for a browser)
/// are listed apart in `pages`. `APIContractTests` holds this list to the router's own table both ways.
enum APIOperations {
    typealias S = JSONSchema
    typealias Op = APIOperation

    static var all: [APIOperation] {
        reads + recordings + activityAndTimeline + media + live + onvif + CommandOperations.all
    }

    /// Routes that serve pages and the forms they post, not the API: HTML for a browser (or its script and style).
    static let pages: Set<String> = [
        "GET /", "GET /live", "GET /recordings", "GET /recordings/{id}", "GET /settings", "GET /activity",
        "GET /activity/{id}/play",
        "GET /timeline", "GET /timeline/play", "GET /login", "POST /login", "POST /logout", "GET /s/{token}",
        "GET /assets/app.css", "GET /assets/app.js", "GET /favicon.ico",
    ]

    static let items = S.ref("Items")

    static var reads: [APIOperation] {
        [
            Op(
                method: .get, path: "/api/openapi.json", summary: "This document",
                replies: [.json(S.object(required: ["openapi", "paths"]))]),
            Op(
                method: .get, path: "/api/session", summary: "Who is asking: the access, account, role and CSRF token",
                replies: [.json(S.ref("Session"))]),
            Op(
                method: .get, path: "/api/routes", summary: "The router's table: every route and the role it needs",
                replies: [.json(S.object(["items": S.array(S.ref("Route"))], required: ["items"]))]),
            Op(
                method: .get, path: "/api/users", summary: "The accounts",
                replies: [
                    .json(
                        S.object(["items": S.array(S.ref("Account")), "token_file": S.boolean()], required: ["items"]))
                ]),
            Op(method: .get, path: "/api/sessions", summary: "The signed-in sessions", replies: [.json(items)]),
            Op(
                method: .delete, path: "/api/sessions/{handle}", summary: "Sign a session out",
                parameters: [.path("handle")],
                replies: [
                    .json(S.object(["handle": S.string(), "revoked": S.boolean()], required: ["handle", "revoked"]))
                ]),
            Op(
                method: .get, path: "/api/status", summary: "The daemon's state (as `ctl status --json`)",
                replies: [.json(S.ref("Status"))]),
            Op(
                method: .get, path: "/api/cameras", summary: "The cameras and the devices found",
                replies: [
                    .json(
                        S.object(
                            ["active": S.string(), "cameras": S.array(S.object()), "devices": S.array(S.object())],
                            required: ["cameras"]))
                ]),
            Op(
                method: .get, path: "/api/backup", summary: "The backup queue and its settings",
                replies: [
                    .json(
                        S.object(["enabled": S.boolean(), "counts": S.map(S.integer(min: 0))], required: ["enabled"]))
                ]),
            Op(
                method: .get, path: "/api/shares", summary: "The share links",
                replies: [
                    .json(
                        S.object(
                            ["items": S.array(S.ref("Share"))],
                            required: ["items"]))
                ]),
            Op(
                method: .delete, path: "/api/shares/{token}",
                summary: "End a share link: its token, or its id as listed",
                parameters: [.path("token")],
                replies: [.json(S.object(["id": S.string(), "revoked": S.boolean()], required: ["id", "revoked"]))]),
            Op(
                method: .get, path: "/api/config", summary: "The configuration in effect, secrets masked",
                replies: [.json(S.object())]),
            Op(
                method: .get, path: "/api/events",
                summary: "The events as they happen (server-sent events, never ending)",
                replies: [
                    .media(
                        "text/event-stream",
                        "one `event:` and `data:` per appliance event; `event: dropped` before a slow client is closed")
                ]),
            Op(
                method: .get, path: "/metrics", summary: "Prometheus metrics",
                replies: [.media("text/plain", "the text exposition format 0.0.4")]),
        ]
    }

    static let id = APIOperation.Parameter.path("id")

    static var recordings: [APIOperation] {
        let page = S.integer("from 1", min: Command.pages.lowerBound, max: Command.pages.upperBound)
        let perPage = S.integer(min: Command.perPageRange.lowerBound, max: Command.perPageRange.upperBound)
        let listQuery: [APIOperation.Parameter] = [
            .query("page", page), .query("per_page", perPage),
            .query("grouped", S.string(values: ["true", "false", "1", "0"])),
            .query("group", S.string("a loop recording's group: its segments")),
            .query("search", S.string(maxLength: 200)),
            .query("q", S.string("the same as search", maxLength: 200)), .query("from", S.orEmpty(S.moment)),
            .query("to", S.orEmpty(S.moment)),
            .query("date", S.orEmpty(S.day)),
            .query("channel", S.string("only the clips of this [[channel]]", maxLength: 64)),
        ]
        return [
            Op(
                method: .get, path: "/api/recordings",
                summary: "A page of recordings, newest first (404: a `group` that is not there)", parameters: listQuery,
                replies: [.json(S.ref("RecordingPage"))], errors: [404]),
            Op(
                method: .get, path: "/api/recordings/{id}", summary: "One recording, with what its file measures",
                parameters: [id],
                replies: [.json(S.ref("Recording"))], errors: [404]),
            Op(
                method: .post, path: "/api/recordings/{id}/rename", summary: "Rename", parameters: [id],
                body: CommandOperations.body(["title": CommandOperations.title], required: ["title"]),
                replies: [.json(S.ref("Recording"))], errors: [404]),
            Op(
                method: .post, path: "/api/recordings/{id}/lock", summary: "Keep from retention", parameters: [id],
                body: CommandOperations.body([:]), replies: [.json(S.ref("Recording"))], errors: [404]),
            Op(
                method: .post, path: "/api/recordings/{id}/unlock", summary: "Let retention delete it again",
                parameters: [id],
                body: CommandOperations.body([:]), replies: [.json(S.ref("Recording"))], errors: [404]),
            Op(
                method: .post, path: "/api/recordings/{id}/share",
                summary: "A share link for it (409 while it records)",
                parameters: [id], body: CommandOperations.body(["hours": CommandOperations.hours]),
                replies: [.json(S.ref("Share"))],
                errors: [404, 409]),
            Op(
                method: .delete, path: "/api/recordings/{id}", summary: "Delete (a locked one only with force=true)",
                parameters: [id, .query("force", S.string(values: ["true", "false", "1", "0"]))],
                replies: [.json(S.object())], errors: [404, 409]),
        ]
    }
}
