import ApplianceBase
import ApplianceProtocol
import Foundation
import FrontEndInterface
import Hummingbird

/// `/api`: the same field names as `ctl --json`. Reads are GETs; every command is a POST to
/// `/api/commands/<name>` with its `args` object as the body (the socket's arguments, checked the same way), and
/// the clip actions also have their own paths.
extension Routes {
    func addAPI(to router: GuardedRouter) {
        let api = router.group("api")
        addSessionRoutes(to: api)
        addDocumentRoutes(to: api)
        api.get("status") { _, _ in try JSONBody.response(try await perform(.status)) }
        api.get("cameras") { _, _ in try JSONBody.response(try await perform(.cameras)) }
        api.get("backup") { _, _ in try JSONBody.response(try await perform(.backupStatus)) }
        api.get("shares") { _, _ in try JSONBody.response(try await perform(.shares)) }
        api.get("config") { _, _ in try JSONBody.response(ConfigView.json(self.context.config)) }
        addRecordingRoutes(to: api)
        api.post("commands/:name") { request, ctx -> Response in
            let name = try ctx.parameters.require("name")
            let arguments = try await JSONBody.arguments(request, context: ctx)
            let command: Command
            command = try Self.command(name, arguments)
            return try JSONBody.response(try await perform(command))
        }
        api.delete("shares/:token") { _, ctx -> Response in
            try JSONBody.response(try await perform(.unshare(link: try ctx.parameters.require("token"))))
        }
        api.get("events") { _, _ in eventStream() }
        router.get("metrics") { _, _ -> Response in
            guard case .metrics(let metrics) = try await perform(.metrics) else {
                throw WebError(.internalServerError, "unexpected result")
            }
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.prometheusText)))
        }
    }

    /// `/api/session` (who is asking and how), the accounts and the signed-in sessions.
    private func addSessionRoutes(to api: RouterGroup<WebContext>) {
        api.get("session") { _, ctx -> Response in
            struct SessionInfo: Encodable {
                var access: String
                var csrf: String?
                var user: String?
                var role: UserRole?
            }
            let access =
                switch ctx.access {
                case .session: "session"
                case .credential: "credential"
                case .readOnly: "read_only"
                case .anonymous: "anonymous"
                }
            return try JSONBody.response(
                SessionInfo(
                    access: access, csrf: ctx.access.session?.csrf, user: ctx.access.identity?.name,
                    role: ctx.access.role))
        }
        api.get("users") { _, _ in try JSONBody.response(try await perform(.users)) }
        api.get("sessions") { _, _ -> Response in
            struct SessionList: Encodable { var items: [SessionSummary] }
            return try JSONBody.response(SessionList(items: access.sessions.list()))
        }
        api.delete("sessions/:handle") { _, ctx -> Response in
            struct Revoked: Encodable {
                var handle: String
                var revoked: Bool
            }
            let handle = try ctx.parameters.require("handle")
            guard access.sessions.revoke(handle: handle) else {
                throw WebError(.notFound, "no session with that handle")
            }
            return try JSONBody.response(Revoked(handle: handle, revoked: true))
        }
    }

    /// `/api/routes` and `/api/openapi.json`: what the API offers, as a list and as an OpenAPI document.
    private func addDocumentRoutes(to api: RouterGroup<WebContext>) {
        api.get("routes") { _, _ -> Response in
            struct RouteList: Encodable { var items: [RouteTable.Entry] }
            return try JSONBody.response(RouteList(items: table.all))
        }
        // The same document for the daemon's life (its routes do not change): encoded once, when the route is added.
        let openAPI = Result { try OpenAPIDocument.data(features: context.onvif == nil ? [] : [.onvif]) }
        api.get("openapi.json") { _, _ -> Response in
            let data = try openAPI.get()
            return Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-cache"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
    }

    /// `/api/recordings`: the list (a page), one clip, and the clip actions by id in the path.
    private func addRecordingRoutes(to api: RouterGroup<WebContext>) {
        api.get("recordings") { request, _ -> Response in
            guard case .list(let list) = try await perform(try Self.listCommand(request.uri.queryParameters)) else {
                throw WebError(.internalServerError, "unexpected result")
            }
            struct Page: Encodable {
                var items: [WebRecording]
                var total: Int
                var page: Int
                var perPage: Int
                var pages: Int
                var elapsedMs: Double
            }
            return try JSONBody.response(
                Page(
                    items: list.items.map { WebRecording(recording: $0) }, total: list.total, page: list.page,
                    perPage: list.perPage, pages: list.pages, elapsedMs: list.elapsedMs))
        }
        api.get("recordings/:id") { _, ctx -> Response in
            let id = try ctx.parameters.require("id")
            guard case .info(let info) = try await perform(.info(id: id)) else {
                throw WebError(.internalServerError, "unexpected result")
            }
            return try JSONBody.response(WebRecording(recording: info.recording, measured: info.measured))
        }
        api.post("recordings/:id/rename") { request, ctx -> Response in
            let id = try ctx.parameters.require("id")
            var arguments = try await JSONBody.arguments(request, context: ctx)
            arguments["id"] = .string(id)
            return try JSONBody.response(try await perform(try Self.command("rename", arguments)))
        }
        for action in ["lock", "unlock", "share"] {
            api.post("recordings/:id/\(action)") { request, ctx -> Response in
                var arguments = try await JSONBody.arguments(request, context: ctx)
                arguments["id"] = .string(try ctx.parameters.require("id"))
                return try JSONBody.response(try await perform(try Self.command(action, arguments)))
            }
        }
        api.delete("recordings/:id") { request, ctx -> Response in
            let force = try Self.flag("force", in: request.uri.queryParameters) ?? false
            return try JSONBody.response(try await perform(.delete(id: try ctx.parameters.require("id"), force: force)))
        }
    }

    static func command(_ name: String, _ arguments: [String: JSONValue]) throws -> Command {
        do {
            return try Command(name: name, arguments: arguments)
        } catch {
            throw WebError(error)
        }
    }

    /// `?page=N&per_page=K` and `grouped=true` or `group=ID`, as `ctl list` takes them.
    /// `grouped`: the default when the query does not say (the recordings page shows a loop recording as one entry).
    static func listCommand(_ query: Parameters, grouped: Bool = false) throws -> Command {
        var arguments: [String: JSONValue] = [:]
        for key in ["page", "per_page"] {
            guard let text = query.get(key) else { continue }
            guard let number = Int(text) else {
                throw WebError(.badRequest, "\(key) must be a whole number, found \"\(text)\"")
            }
            arguments[key] = .int(number)
        }
        if let group = query.get("group") { arguments["group"] = .string(group) }
        // Search and date: `search` (or the page's `q`), `from`/`to` (ISO 8601), or `date` (a day, YYYY-MM-DD, in
        // the device's time zone).
        if let search = (query.get("search") ?? query.get("q")), !search.isEmpty {
            arguments["search"] = .string(search)
        }
        for key in ["from", "to", "channel"] {
            if let value = query.get(key), !value.isEmpty { arguments[key] = .string(value) }
        }
        if let day = query.get("date"), !day.isEmpty {
            guard let (from, to) = Self.dayBounds(day) else {
                throw WebError(.badRequest, "date must be a day such as 2026-11-23, found \"\(day)\"")
            }
            (arguments["from"], arguments["to"]) = (.string(Timestamps.iso(from)), .string(Timestamps.iso(to)))
        }
        let filtered = ["search", "from", "to", "channel"].contains { arguments[$0] != nil }
        if let flag = try flag("grouped", in: query) {
            arguments["grouped"] = .bool(flag)
        } else if grouped && query.get("group") == nil && !filtered {
            arguments["grouped"] = .bool(true)
        }
        return try command("list", arguments)
    }

    /// A yes-or-no query parameter: `true`/`1` or `false`/`0`, given once; anything else is a 400 naming it.
    static func flag(_ key: String, in query: Parameters) throws -> Bool? {
        let values = query.getAll(key)
        guard let text = values.first else { return nil }
        switch (text, values.count) {
        case ("true", 1), ("1", 1): return true
        case ("false", 1), ("0", 1): return false
        default:
            throw WebError(
                .badRequest,
                """
                \(key) must be given once, as true or false (or 1 or 0), found \
                \"\(values.joined(separator: ",").prefix(40))\"
                """
            )
        }
    }

    /// The start of `day` and of the next day, in the device's time zone.
    static func dayBounds(_ day: String) -> (Date, Date)? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone.current
        formatter.dateFormat = "yyyy-MM-dd"
        guard day.count == 10, let start = formatter.date(from: day),
            let end = Calendar.current.date(byAdding: .day, value: 1, to: start)
        else { return nil }
        return (start, end)
    }

    /// Events one `/api/events` client may have waiting to be sent before it is dropped.
    static let eventBacklog = 256

    /// Server-sent events: each appliance event as `event: <name>` and the socket's event line as `data`, with a
    /// comment every 15 s so proxies keep the connection.
    func eventStream() -> Response {
        let subscription = context.events.subscribe()
        let events = context.events
        let streams = self.streams
        let registration = streams.register { events.unsubscribe(subscription.id) }
        let body = ResponseBody { writer in
            defer {
                events.unsubscribe(subscription.id)
                streams.unregister(registration)
            }
            // Bounded: a client that falls `eventBacklog` events behind is dropped, told why if it still reads.
            let (chunks, out) = AsyncStream<String>.makeStream(bufferingPolicy: .bufferingOldest(Self.eventBacklog))
            let fellBehind = Locked(false)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await record in subscription.events {
                        guard let line = try? WireFormat.line(record) else { continue }
                        if case .dropped = out.yield(
                            "event: \(record.event.name)\ndata: " + String(decoding: line.dropLast(), as: UTF8.self)
                                + "\n\n")
                        {
                            fellBehind.withLock { $0 = true }
                            break
                        }
                    }
                    out.finish()
                }
                group.addTask {
                    while true {
                        try await Task.sleep(for: .seconds(15))
                        out.yield(": keep-alive\n\n")
                    }
                }
                try await writer.write(ByteBuffer(string: "retry: 2000\n: connected\n\n"))
                for await chunk in chunks { try await writer.write(ByteBuffer(string: chunk)) }
                group.cancelAll()
            }
            if fellBehind.withLock({ $0 }) {
                try await writer.write(
                    ByteBuffer(
                        string:
                            """
                            event: dropped\ndata: {\"reason\":\"this client fell \(Self.eventBacklog) events \
                            behind\"}\n\n
                            """
                    ))
            }
            try await writer.finish(nil)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-store"], body: body)
    }
}
