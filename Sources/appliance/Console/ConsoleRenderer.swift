import ApplianceProtocol
import Foundation

/// One line of the console's screen: its text and whether it stands out (shown in reverse video).
struct ScreenLine: Sendable, Equatable {
    var text: String
    var highlighted = false
}

/// Turns the model into the screen's lines: a pure function of the model, the time and the terminal's size, so a
/// test can check what a state looks like without a terminal.
enum ConsoleRenderer {
    static let help = "space record/stop   s snapshot   p protect   n next camera   q quit"

    /// At most `height` lines, each at most `width` characters; the key help is always the last line.
    static func lines(_ model: ConsoleModel, now: Date, width: Int, height: Int) -> [ScreenLine] {
        guard width > 0, height > 0 else { return [] }
        var body: [ScreenLine] = []
        body.append(ScreenLine(text: "appliance console  \(model.socketPath)"))
        body.append(ScreenLine(text: ""))
        body.append(ScreenLine(text: stateLine(model, now: now), highlighted: model.state != .idle))
        if model.state != .idle, let title = model.recordingTitle { body.append(ScreenLine(text: "  \"\(title)\"")) }
        body.append(ScreenLine(text: ""))
        let others = model.cameras.filter { $0 != model.activeCamera }
        body.append(
            ScreenLine(
                text: field(
                    "camera",
                    model.activeCamera.isEmpty
                        ? "-"
                        : model.activeCamera
                            + (others.isEmpty ? "" : "   (cameras: \(model.cameras.joined(separator: ", ")))"))))
        body.append(ScreenLine(text: field("storage", storage(model))))
        if let full = model.storageFull {
            body.append(ScreenLine(text: field("", "STORAGE FULL: \(full)"), highlighted: true))
        }
        if let clip = model.lastClip {
            body.append(ScreenLine(text: field("last clip", "\"\(clip.title)\"  \(clip.durationMs.map(clock) ?? "-")")))
            body.append(ScreenLine(text: field("", clip.path)))
        } else {
            body.append(ScreenLine(text: field("last clip", "none yet")))
        }
        if let url = model.webURL { body.append(ScreenLine(text: field("web", url))) }
        if let fingerprint = model.webFingerprint {  // 95 characters: two lines of 16 bytes fit an 80-column screen
            let pairs = fingerprint.split(separator: ":")
            body.append(ScreenLine(text: field("", "SHA-256 " + pairs.prefix(16).joined(separator: ":"))))
            body.append(ScreenLine(text: field("", "        " + pairs.dropFirst(16).joined(separator: ":"))))
        }
        body.append(ScreenLine(text: ""))
        if let gone = model.disconnected {
            body.append(ScreenLine(text: "DAEMON GONE: \(gone)", highlighted: true))
        } else if let message = model.message {
            body.append(
                ScreenLine(
                    text: model.messageIsError ? "! \(message)" : "> \(message)", highlighted: model.messageIsError))
        }

        let room = height - 1
        var lines = Array(body.prefix(max(0, room)))
        if room > lines.count { lines += Array(repeating: ScreenLine(text: ""), count: room - lines.count) }
        lines.append(ScreenLine(text: help))
        return lines.map { ScreenLine(text: clip($0.text, to: width), highlighted: $0.highlighted) }
    }

    /// "IDLE", "● RECORDING  0:12", "STOPPING  0:12".
    static func stateLine(_ model: ConsoleModel, now: Date) -> String {
        let elapsed = model.recordingStart.map { clock(max(0, Int(now.timeIntervalSince($0) * 1000))) }
        switch model.state {
        case .idle: return "IDLE"
        case .recording: return "● RECORDING  \(elapsed ?? "")"
        case .stopping: return "STOPPING  \(elapsed ?? "")"
        }
    }

    static func storage(_ model: ConsoleModel) -> String {
        guard let c = model.capacity else { return "-" }
        var text = String(format: "%.1f GB free", Double(c.freeBytes) / 1e9)
        // Absent while nothing would be overwritten or the rate is not known yet (see `Capacity.wrapsInS`).
        text += c.wrapsIn.map { ", wraps in \($0)" } ?? ", no wrap expected"
        return text
    }

    /// Whole seconds: "0:07", "12:34", "1:02:03".
    static func clock(_ ms: Int) -> String {
        let s = ms / 1000
        return s >= 3600
            ? String(format: "%d:%02d:%02d", s / 3600, s / 60 % 60, s % 60) : String(format: "%d:%02d", s / 60, s % 60)
    }

    /// Local "HH:mm:ss".
    static func timeOfDay(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        return formatter.string(from: date)
    }

    /// How long until the elapsed time shows the next second (the console redraws then); nil while nothing ticks.
    static func nextTick(_ model: ConsoleModel, now: Date) -> TimeInterval? {
        guard model.state != .idle, let start = model.recordingStart else { return nil }
        let elapsed = max(0, now.timeIntervalSince(start))
        return max(0.01, (elapsed.rounded(.down) + 1) - elapsed)
    }

    private static func field(_ name: String, _ value: String) -> String {
        name.padding(toLength: 11, withPad: " ", startingAt: 0) + value
    }

    /// Cuts by characters (never through a multi-byte character), marking the cut with "…".
    private static func clip(_ text: String, to width: Int) -> String {
        text.count <= width ? text : String(text.prefix(max(0, width - 1))) + "…"
    }
}
