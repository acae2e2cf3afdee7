import ApplianceProtocol
import ArgumentParser
import Foundation

struct Protect: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lock every clip around now (an event): segments still to come in the window are locked as they start.")
    @OptionGroup var options: CtlOptions
    @Option(name: .long, help: "Seconds before now.") var before = Command.defaultProtectWindow
    @Option(name: .long, help: "Seconds after now.") var after = Command.defaultProtectWindow

    func run() {
        options.perform(.protect(before: before, after: after)) { (r: ProtectResult) in
            var lines = ["locked \(r.locked.count) clip(s)\(r.pendingUntil == nil ? "" : "; segments starting in the next \(Int(after)) s will be locked too")"]
            lines += r.locked.map { "  \($0)" }
            if !r.alreadyDeleted.isEmpty { lines.append("already deleted: \(r.alreadyDeleted.joined(separator: ", "))") }
            return lines.joined(separator: "\n")
        }
    }
}

/// The capacity line of `status`: "storage: 1.2 GB used, 40.1 GB free, locked 3.0 %, 4012 kbit/s, wraps in 6 h 12 min".
func capacityLine(_ c: Capacity) -> String {
    func gb(_ bytes: Int64) -> String { String(format: "%.1f GB", Double(bytes) / 1e9) }
    var parts = ["\(gb(c.usedBytes)) used", "\(gb(c.freeBytes)) free", String(format: "locked %.1f %%", c.lockedPercent)]
    if let rate = c.bitrateKbps { parts.append("\(Int(rate)) kbit/s") }
    if let wraps = c.wrapsIn { parts.append("wraps in \(wraps)") }
    return "storage: " + parts.joined(separator: ", ")
}
