import ApplianceApp
import ApplianceBase
import ApplianceProtocol
import ArgumentParser
import Foundation

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List recordings, newest first.")
    @OptionGroup var options: CtlOptions
    @Option(name: .long, help: "Page number (from 1).") var page = 1
    @Option(name: .long, help: "Recordings per page.") var perPage = Command.defaultPerPage
    @Flag(name: .long, help: "Show a loop recording (dashcam drive) as one entry.") var grouped = false
    @Option(name: .long, help: "List the segments of this loop recording (an id or prefix of it or of a segment).")
    var group: String?
    @Option(name: .long, help: "Only clips whose title contains this text.") var search: String?
    @Option(name: .long, help: "Only clips started at or after this moment (ISO 8601, e.g. 2026-11-23T08:00:00Z).")
    var from: String?
    @Option(name: .long, help: "Only clips started before this moment (ISO 8601).") var to: String?
    @Option(name: .long, help: "Only clips of this channel ([[channel]] name).") var channel: String?

    var filter: ListFilter {
        ListFilter(
            search: search, from: from.flatMap(Timestamps.date(iso:)), to: to.flatMap(Timestamps.date(iso:)),
            channel: channel)
    }

    func validate() throws {
        if grouped, group != nil { throw ValidationError("--grouped and --group exclude each other") }
        for (name, value) in [("--from", from), ("--to", to)] {
            if let value, Timestamps.date(iso: value) == nil {
                throw ValidationError("\(name) must be an ISO 8601 moment such as 2026-11-23T08:00:00Z")
            }
        }
        if !filter.isEmpty, grouped || group != nil {
            throw ValidationError("--search/--from/--to/--channel and --grouped/--group exclude each other")
        }
    }

    func run() {
        let command: Command =
            if !filter.isEmpty { .listFiltered(filter, page: page, perPage: perPage) } else if let group {
                .listSegments(group: group, page: page, perPage: perPage)
            } else if grouped { .listGrouped(page: page, perPage: perPage) } else {
                .list(page: page, perPage: perPage)
            }
        options.perform(command) { (r: ListResult) in
            let pages = max(1, r.pages)
            guard !r.items.isEmpty else {
                return r.total == 0
                    ? "no recordings yet" : "page \(page) is empty (\(r.total) recordings, \(pages) pages)"
            }
            let rows = r.items.map { item -> [String] in
                let part = item.segments.map { "\($0) segments" } ?? item.segment.map { "#\($0)" } ?? ""
                return [
                    String(item.id.prefix(8)), item.title, part, localDate(item.createdAt),
                    formatDuration(item.durationMs),
                    formatSize(item.sizeBytes), item.state.rawValue,
                    (item.locked ? "locked " : "") + item.backupState.rawValue,
                ]
            }
            return table(header: ["ID", "TITLE", "PART", "DATE", "LENGTH", "SIZE", "STATE", "BACKUP"], rows: rows)
                + "\npage \(r.page) of \(pages) (\(r.total) recordings)"
        }
    }
}

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show every field of a recording, and what its file says.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "Recording id or a unique prefix of it.") var id: String

    func run() {
        options.perform(.info(id: id)) { (r: RecordingInfo) in
            var lines = fields(of: r.recording).map { "\($0.key): \($0.value)" }
            lines.append("measured from the file:")
            lines += fields(of: r.measured).map { "  \($0.key): \($0.value)" }
            return lines.joined(separator: "\n")
        }
    }

    /// An object's fields as they go on the wire (snake_case keys, sorted), values in short form.
    private func fields(of value: some Encodable) -> [(key: String, value: String)] {
        guard let data = try? WireFormat.encoder.encode(value),
            let object = (try? JSONDecoder().decode(JSONValue.self, from: data))?.objectValue
        else { return [] }
        return object.keys.sorted().map { ($0, object[$0]!.text) }
    }
}

struct Rename: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Set a recording's title.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "Recording id or a unique prefix.") var id: String
    @Argument(help: "The new title (free text).") var title: String

    func run() {
        options.perform(.rename(id: id, title: title)) { (r: Recording) in "renamed \(r.id) to \"\(r.title)\"" }
    }
}

struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete a recording: file, thumbnail and row.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "Recording id or a unique prefix.") var id: String
    @Flag(name: .long, help: "Delete even if locked.") var force = false

    func run() {
        options.perform(.delete(id: id, force: force)) { (r: DeleteResult) in
            "deleted \(r.id) (\(r.deletedFiles.count) files)"
        }
    }
}

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Protect a recording from deletion and retention.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "Recording id or a unique prefix.") var id: String

    func run() { options.perform(.lock(id: id)) { (r: Recording) in "locked \(r.id)" } }
}

struct Unlock: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove a recording's lock.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "Recording id or a unique prefix.") var id: String

    func run() { options.perform(.unlock(id: id)) { (r: Recording) in "unlocked \(r.id)" } }
}

struct Events: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print events as they happen (until interrupted).")
    @OptionGroup var options: CtlOptions

    func run() {
        let client: ControlClient
        do {
            client = try ControlClient(path: options.socketPath, timeout: 0)
            try client.subscribe()
        } catch let error as ApplianceError {
            fail("\(error.message) (\(error.code.rawValue))")
        } catch {
            fail("\(error)", code: 2)
        }
        while true {
            let record: EventLine
            do {
                record = try client.nextEventLine()
            } catch {
                fail("\(error)", code: 2)
            }
            if options.json {
                emit((try? WireFormat.compactJSON(record)) ?? "{}")
            } else {
                let data = record.data.objectValue ?? [:]
                let fields = data.keys.sorted().map { "\($0)=\(data[$0]!.text)" }.joined(separator: " ")
                emit("\(Timestamps.iso(record.time)) \(record.event) \(fields)")
            }
        }
    }
}

// MARK: formatting

/// Writes a line straight to stdout (unbuffered, so piped event streams arrive as they happen).
func emit(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// A text table with columns padded to their widest cell.
func table(header: [String], rows: [[String]]) -> String {
    let all = [header] + rows
    let widths = header.indices.map { column in all.map { $0[column].count }.max() ?? 0 }
    return all.map { row in
        // Pad by characters: Foundation's padding(toLength:) counts UTF-16 units and would cut an emoji in half.
        row.enumerated().map { $1 + String(repeating: " ", count: max(0, widths[$0] - $1.count)) }.joined(
            separator: "  "
        )
        .trimmingCharacters(in: .whitespaces)
    }.joined(separator: "\n")
}

/// 83456 → "01:23"
func formatDuration(_ ms: Int?) -> String {
    guard let ms else { return "-" }
    let seconds = (ms + 500) / 1000
    return seconds >= 3600
        ? String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
        : String(format: "%02d:%02d", seconds / 60, seconds % 60)
}

func formatSize(_ bytes: Int64?) -> String {
    guard let bytes else { return "-" }
    let value = Double(bytes)
    return value >= 1e9 ? String(format: "%.1f GB", value / 1e9) : String(format: "%.1f MB", value / 1e6)
}

/// A date as local "YYYY-MM-DD HH:MM".
func localDate(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    return formatter.string(from: date)
}
