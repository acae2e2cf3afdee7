import ApplianceCore
import ArgumentParser
import Foundation

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List recordings, newest first.")
    @OptionGroup var options: CtlOptions
    @Option(name: .long, help: "Page number (from 1).") var page = 1
    @Option(name: .long, help: "Recordings per page.") var perPage = 10

    func run() {
        options.call("list", args: ["page": page, "per_page": perPage]) { r in
            let items = r["items"] as? [[String: Any]] ?? []
            let total = r["total"] as? Int ?? 0
            let pages = max(1, r["pages"] as? Int ?? 1)
            guard !items.isEmpty else { return total == 0 ? "no recordings yet" : "page \(page) is empty (\(total) recordings, \(pages) pages)" }
            let rows = items.map { item -> [String] in
                [String((item["id"] as? String ?? "").prefix(8)), item["title"] as? String ?? "",
                 localDate(item["created_at"] as? String), formatDuration(item["duration_ms"]),
                 formatSize(item["size_bytes"]), item["state"] as? String ?? "",
                 (item["locked"] as? Bool == true ? "locked " : "") + (item["backup_state"] as? String ?? "")]
            }
            return table(header: ["ID", "TITLE", "DATE", "LENGTH", "SIZE", "STATE", "BACKUP"], rows: rows)
                + "\npage \(r["page"] ?? page) of \(pages) (\(total) recordings)"
        }
    }
}

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show every field of a recording, and what its file says.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "Recording id or a unique prefix of it.") var id: String

    func run() {
        options.call("info", args: ["id": id]) { r in
            var lines = r.keys.filter { $0 != "measured" }.sorted().map { "\($0): \(describe(r[$0]))" }
            if let measured = r["measured"] as? [String: Any] {
                lines.append("measured from the file:")
                lines += measured.keys.sorted().map { "  \($0): \(describe(measured[$0]))" }
            }
            return lines.joined(separator: "\n")
        }
    }
}

struct Rename: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Set a recording's title.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "Recording id or a unique prefix.") var id: String
    @Argument(help: "The new title (free text).") var title: String

    func run() {
        options.call("rename", args: ["id": id, "title": title]) { r in "renamed \(r["id"] ?? "") to \"\(r["title"] ?? "")\"" }
    }
}

struct Delete: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Delete a recording: file, thumbnail and row.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "Recording id or a unique prefix.") var id: String
    @Flag(name: .long, help: "Delete even if locked.") var force = false

    func run() {
        options.call("delete", args: ["id": id, "force": force]) { r in
            "deleted \(r["id"] ?? "") (\((r["deleted_files"] as? [String] ?? []).count) files)"
        }
    }
}

struct Lock: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Protect a recording from deletion and retention.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "Recording id or a unique prefix.") var id: String

    func run() { options.call("lock", args: ["id": id]) { r in "locked \(r["id"] ?? "")" } }
}

struct Unlock: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove a recording's lock.")
    @OptionGroup var options: CtlOptions
    @Argument(help: "Recording id or a unique prefix.") var id: String

    func run() { options.call("unlock", args: ["id": id]) { r in "unlocked \(r["id"] ?? "")" } }
}

struct Events: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print events as they happen (until interrupted).")
    @OptionGroup var options: CtlOptions

    func run() {
        do {
            let client = try ControlClient(path: options.socketPath, timeout: 0)
            let ack = try client.call("events")
            guard ack["ok"] as? Bool == true else {
                let error = ack["error"] as? [String: Any] ?? [:]
                fail("\(error["message"] as? String ?? "failed") (\(error["code"] as? String ?? "error"))")
            }
            while true {
                let line = try client.readLine()
                if options.json {
                    emit(String(decoding: line, as: UTF8.self))
                } else if let event = try? JSONSerialization.jsonObject(with: line) as? [String: Any] {
                    let data = (event["data"] as? [String: Any] ?? [:]).sorted { $0.key < $1.key }
                        .map { "\($0.key)=\(describe($0.value))" }.joined(separator: " ")
                    emit("\(event["time"] ?? "") \(event["event"] ?? "") \(data)")
                }
            }
        } catch {
            fail("\(error)", code: 2)
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
        row.enumerated().map { $1 + String(repeating: " ", count: max(0, widths[$0] - $1.count)) }.joined(separator: "  ")
            .trimmingCharacters(in: .whitespaces)
    }.joined(separator: "\n")
}

/// 83456 → "01:23"
func formatDuration(_ value: Any?) -> String {
    guard let ms = value as? Int else { return "-" }
    let seconds = (ms + 500) / 1000
    return seconds >= 3600 ? String(format: "%d:%02d:%02d", seconds / 3600, seconds / 60 % 60, seconds % 60)
        : String(format: "%02d:%02d", seconds / 60, seconds % 60)
}

func formatSize(_ value: Any?) -> String {
    guard let bytes = (value as? Int).map(Double.init) else { return "-" }
    return bytes >= 1e9 ? String(format: "%.1f GB", bytes / 1e9) : String(format: "%.1f MB", bytes / 1e6)
}

/// ISO 8601 UTC → local "YYYY-MM-DD HH:MM".
func localDate(_ iso: String?) -> String {
    let parser = ISO8601DateFormatter()
    parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    guard let iso, let date = parser.date(from: iso) else { return iso ?? "-" }
    let formatter = DateFormatter()
    formatter.dateFormat = "yyyy-MM-dd HH:mm"
    return formatter.string(from: date)
}

func describe(_ value: Any?) -> String {
    switch value {
    case nil, is NSNull: return "-"
    case let flag? where flag is Bool && type(of: flag) != NSNumber.self: return (flag as? Bool) == true ? "true" : "false"
    case let string as String: return string
    case let object as [String: Any]:
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    case let value?: return "\(value)"
    }
}
