import ApplianceBase
import ApplianceProtocol
import ArgumentParser
import Foundation

struct Protect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "Lock every clip around now (an event): segments still to come in the window are locked as they start.")
    @OptionGroup var options: CtlOptions
    @Option(name: .long, help: "Seconds before now.") var before = Command.defaultProtectWindow
    @Option(name: .long, help: "Seconds after now.") var after = Command.defaultProtectWindow

    func run() {
        options.perform(.protect(before: before, after: after)) { (r: ProtectResult) in
            let pending =
                r.pendingUntil == nil ? "" : "; segments starting in the next \(Int(after)) s will be locked too"
            var lines = ["locked \(r.locked.count) clip(s)\(pending)"]
            lines += r.locked.map { "  \($0)" }
            if !r.alreadyDeleted.isEmpty {
                lines.append("already deleted: \(r.alreadyDeleted.joined(separator: ", "))")
            }
            return lines.joined(separator: "\n")
        }
    }
}

/// The capacity line of `status`: "storage: 1.2 GB used, 40.1 GB free, locked 3.0 %, 4012 kbit/s, wraps in 6 h 12 min".
func capacityLine(_ c: Capacity) -> String {
    func gb(_ bytes: Int64) -> String { String(format: "%.1f GB", Double(bytes) / 1e9) }
    var parts = [
        "\(gb(c.usedBytes)) used", "\(gb(c.freeBytes)) free", String(format: "locked %.1f %%", c.lockedPercent),
    ]
    if let rate = c.bitrateKbps { parts.append("\(Int(rate)) kbit/s") }
    if let wraps = c.wrapsIn { parts.append("wraps in \(wraps)") }
    return "storage: " + parts.joined(separator: ", ")
}

struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Join clips into one new MP4 without re-encoding: a loop recording by --group, or a time range.")
    @OptionGroup var options: CtlOptions
    @Option(name: .long, help: "Start: ISO 8601 (2026-11-22T03:00:00Z) or local \"2026-11-22 03:00:00\".") var from:
        String?
    @Option(name: .long, help: "End, in the same forms.") var to: String?
    @Option(name: .long, help: "Only clips from this camera.") var camera: String?
    @Option(name: .long, help: "A loop recording: its id or a prefix of it or of one of its segments.") var group:
        String?
    @Option(name: .long, help: "Title of the new clip.") var title: String?
    @Option(name: .long, help: "Only clips of this channel ([[channel]] name); needed when the range holds several.")
    var channel: String?

    func validate() throws {
        guard (group != nil) != (from != nil || to != nil) else {
            throw ValidationError("give --group, or --from and --to")
        }
        if group == nil, from == nil || to == nil { throw ValidationError("--from and --to go together") }
        for text in [from, to].compactMap({ $0 }) where Self.date(text) == nil {
            throw ValidationError(
                "\"\(text)\" is not a date and time (2026-11-22T03:00:00Z or \"2026-11-22 03:00:00\")")
        }
    }

    func run() {
        let request = ExportRequest(
            from: from.flatMap(Self.date), to: to.flatMap(Self.date), camera: camera, group: group, title: title,
            channel: channel)
        options.perform(.export(request)) { (r: ExportResult) in
            """
            exported \(r.sources.count) clip(s) to \(r.recording.path) (\(formatDuration(r.recording.durationMs)), \
            id \(r.recording.id))
            """
        }
    }

    /// ISO 8601, or local "yyyy-MM-dd HH:mm:ss" as `list` shows dates.
    static func date(_ text: String) -> Date? {
        if let date = Timestamps.date(iso: text) { return date }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        for format in ["yyyy-MM-dd HH:mm:ss", "yyyy-MM-dd HH:mm"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }
}
