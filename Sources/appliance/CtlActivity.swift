import ApplianceBase
import ApplianceProtocol
import ArgumentParser
import Foundation

/// `ctl activity`: what happened (stored), beside `ctl events` (what happens now).
struct ActivityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activity",
        abstract: "What happened: motion, objects, sound, presses of the event button, marks from outside.",
        subcommands: [
            ActivityListCommand.self, ActivityShowCommand.self, ActivityMarkCommand.self, ActivityProtectCommand.self,
        ],
        defaultSubcommand: ActivityListCommand.self)
}

struct ActivityListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "Activity, newest first.")
    @OptionGroup var options: CtlOptions
    @Option(name: .long, help: "Only these kinds: motion, object, sound, manual, external (comma-separated).") var kind:
        String?
    @Option(name: .long, help: "Only this label: an object's (person, car) or a mark's.") var label: String?
    @Option(name: .long, help: "Only this day (2026-11-26, local time).") var day: String?
    @Option(name: .long, help: "From: ISO 8601 or local \"2026-11-26 14:00\".") var from: String?
    @Option(name: .long, help: "To, in the same forms.") var to: String?
    @Option(name: .long, help: "At most this many (1…1000).") var limit: Int?
    @Option(name: .long, help: "Only what this channel noticed ([[channel]] name).") var channel: String?

    func run() {
        var args: [String: JSONValue] = [:]
        if let kind { args["kind"] = .string(kind) }
        if let label { args["label"] = .string(label) }
        if let day { args["day"] = .string(day) }
        for (key, text) in [("from", from), ("to", to)] {
            guard let text else { continue }
            guard let date = Export.date(text) else {
                fail("--\(key): \"\(text)\" is not a date and time (2026-11-26T14:00:00Z or \"2026-11-26 14:00\")")
            }
            args[key] = .string(Timestamps.iso(date))
        }
        if let limit { args["limit"] = .int(limit) }
        if let channel { args["channel"] = .string(channel) }
        let command: Command
        do {
            command = try Command(name: "activity", arguments: args)
        } catch {
            fail(error.message)
        }
        options.perform(command) { (r: ActivityList) in
            guard !r.items.isEmpty else { return "no activity" }
            let rows = r.items.map { a in
                [
                    String(a.id), a.kind.rawValue, localDate(a.startedAt),
                    a.durationS.map { String(format: "%.1f s", $0) } ?? "going on",
                    a.camera ?? "-", a.clip ?? "none", ActivityText.detail(a),
                ]
            }
            return table(header: ["ID", "KIND", "STARTED", "LENGTH", "CAMERA", "CLIP", "DETAIL"], rows: rows)
                + (r.total > r.items.count ? "\n\(r.items.count) of \(r.total) shown (--limit)" : "")
        }
    }
}

struct ActivityShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "One activity and the recordings that cover it.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "The activity's number.") var id: Int64

    func run() {
        options.perform(.activityShow(id: id)) { (d: ActivityDetail) in
            let a = d.activity
            var lines = [
                "activity \(a.id): \(a.kind.rawValue)\(a.label.map { " \"\($0)\"" } ?? "")",
                "started: \(localDate(a.startedAt))",
                """
                ended: \
                \(a.endedAt.map(localDate) ?? "going on")\(a.durationS.map { String(format: " (%.1f s)", $0) } ?? "")
                """,
            ]
            if let camera = a.camera { lines.append("camera: \(camera)") }
            let detail = ActivityText.detail(a)
            if !detail.isEmpty { lines.append(detail) }
            if let picture = a.thumbnail { lines.append("picture: \(picture)") }
            lines.append(d.recordings.isEmpty ? "recordings: none cover it" : "recordings:")
            lines += d.recordings.map { r in
                """
                  \(r.id)  \(localDate(r.createdAt))  \(formatDuration(r.durationMs))  \
                \(r.title)\(r.segment.map { " (segment \($0))" } ?? "")\(r.locked ? " [locked]" : "")
                """
            }
            return lines.joined(separator: "\n")
        }
    }
}

struct ActivityMarkCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mark",
        abstract: "Store an activity from outside (a door contact, an accelerometer): its recordings are kept longer.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "What happened (one line, up to 200 characters).") var label: String
    @Option(name: .long, help: "When: ISO 8601 or local \"2026-11-26 14:00:05\" (default: now).") var at: String?
    @Option(name: .long, help: "How long it lasted, in seconds (default: an instant).") var duration: Double?

    func run() {
        var args: [String: JSONValue] = ["label": .string(label)]
        if let at {
            guard let date = Export.date(at) else {
                fail("--at: \"\(at)\" is not a date and time (2026-11-26T14:00:05Z or \"2026-11-26 14:00:05\")")
            }
            args["at"] = .string(Timestamps.iso(date))
        }
        if let duration { args["duration_s"] = .double(duration) }
        let command: Command
        do {
            command = try Command(name: "activity.mark", arguments: args)
        } catch {
            fail(error.message)
        }
        options.perform(command) { (a: Activity) in
            "marked activity \(a.id) \"\(a.label ?? "")\" at \(localDate(a.startedAt))"
        }
    }
}

struct ActivityProtectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "protect", abstract: "Lock the recordings that cover an activity.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "The activity's number.") var id: Int64

    func run() {
        options.perform(.activityProtect(id: id)) { (r: ProtectResult) in
            var lines = [
                """
                locked \(r.locked.count) \
                clip(s)\(r.pendingUntil == nil ? "" : "; segments starting until \(localDate(r.to)) will be locked too")
                """
            ]
            lines += r.locked.map { "  \($0)" }
            if !r.alreadyDeleted.isEmpty {
                lines.append("already deleted: \(r.alreadyDeleted.joined(separator: ", "))")
            }
            return lines.joined(separator: "\n")
        }
    }
}

/// How an activity reads in a line.
enum ActivityText {
    /// "zones driveway, porch; peak 12.5 % of the frame", "peak -18.2 dBFS", "\"door\"".
    static func detail(_ a: Activity) -> String {
        var parts: [String] = []
        if let label = a.label { parts.append("\"\(label)\"") }
        if !a.zones.isEmpty { parts.append("zones \(a.zones.joined(separator: ", "))") }
        switch (a.kind, a.peak) {
        case (.motion, let peak?): parts.append(String(format: "peak %.1f %% of the frame", peak * 100))
        case (.sound, let peak?): parts.append(String(format: "peak %.1f dBFS", peak))
        case (.object, let peak?): parts.append(String(format: "score %.2f", peak))
        default: break
        }
        return parts.joined(separator: "; ")
    }
}
