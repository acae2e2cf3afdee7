import ApplianceCore
import ArgumentParser
import Foundation

/// Options every `ctl` subcommand shares.
struct CtlOptions: ParsableArguments {
    @Option(name: .long, help: "Control socket (default: $APPLIANCE_SOCKET, else the config's socket, else ./data/ctl.sock).")
    var socket: String?

    @Option(name: .long, help: "Read the socket path from this config file.")
    var config: String?

    @Flag(name: .long, help: "Print the answer as one JSON object.")
    var json = false

    var socketPath: String {
        if let socket { return socket }
        if let env = ProcessInfo.processInfo.environment["APPLIANCE_SOCKET"], !env.isEmpty { return env }
        if let config, let settings = try? ConfigLoader.load(path: config) { return settings.socketPath }
        return ApplianceConfig().socketPath
    }

    /// Sends a command, prints the result (JSON or text) and exits non-zero with a one-line reason on failure.
    func call(_ command: String, args: [String: Any] = [:], text: ([String: Any]) -> String) {
        let response: [String: Any]
        do {
            let client = try ControlClient(path: socketPath, timeout: 60)
            response = try client.call(command, args: args)
        } catch {
            if json { printJSON(["ok": false, "error": ["code": "unavailable", "message": "\(error)"]]) }
            fail("\(error)", code: 2)
        }
        if response["ok"] as? Bool == true {
            let result = response["result"] as? [String: Any] ?? [:]
            if json { printJSON(result) } else { print(text(result)) }
        } else {
            let error = response["error"] as? [String: Any] ?? [:]
            if json { printJSON(["ok": false, "error": error]) }
            fail("\(error["message"] as? String ?? "failed") (\(error["code"] as? String ?? "error"))")
        }
    }

    func printJSON(_ object: [String: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        print(String(decoding: data, as: UTF8.self))
    }
}

struct Ctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Control a running daemon over its socket.",
        subcommands: [Status.self, Record.self, Snapshot.self, List.self, Info.self, Rename.self, Delete.self,
                      Lock.self, Unlock.self, Events.self, Cameras.self, Switch.self, Backup.self])
    /// Lets the shared options come before the subcommand too: `appliance ctl --json status`.
    @OptionGroup var options: CtlOptions
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show what the appliance is doing.")
    @OptionGroup var options: CtlOptions

    func run() {
        options.call("status") { r in
            var lines = ["state: \(r["state"] ?? "?")"]
            if let rec = r["recording"] as? [String: Any] {
                lines.append("recording: \(rec["id"] ?? "") \"\(rec["title"] ?? "")\" \(formatMs(rec["duration_ms"])) "
                    + "frames=\(rec["video_frames"] ?? 0) dropped=\(rec["dropped_frames"] ?? 0)")
            }
            lines.append("cameras: \((r["cameras"] as? [String] ?? []).joined(separator: ", ")) (active: \(r["active_camera"] ?? ""))")
            lines.append("video: \(r["width"] ?? "?")x\(r["height"] ?? "?")@\(r["framerate"] ?? "?") \(r["encoder"] ?? "")"
                + "  audio: \(r["audio_source"] ?? "?")  preview: \(r["preview"] ?? "?")")
            lines.append("data: \(r["data_dir"] ?? "")  recordings: \(r["recordings_total"] ?? 0) (this run: \(r["recordings_this_run"] ?? 0))")
            if let error = r["last_error"] as? String { lines.append("last error: \(error)") }
            return lines.joined(separator: "\n")
        }
    }
}

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Start or stop recording.", subcommands: [Start.self, Stop.self])
    @OptionGroup var options: CtlOptions

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start a recording.")
        @OptionGroup var options: CtlOptions
        @Option(name: .long, help: "Title of the clip (default: the date and time).") var title: String?

        func run() {
            options.call("record.start", args: title.map { ["title": $0] } ?? [:]) { r in
                "recording \(r["id"] ?? "") \"\(r["title"] ?? "")\""
            }
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Stop the recording; answers once the file is finalised.")
        @OptionGroup var options: CtlOptions
        @Option(name: .long, help: "Set the clip's title.") var title: String?

        func run() {
            options.call("record.stop", args: title.map { ["title": $0] } ?? [:]) { r in
                "saved \(r["path"] ?? "") (\(formatMs(r["duration_ms"])), \(r["video_frames"] ?? 0) frames, thumbnail \(r["thumbnail"] as? String ?? "none"))"
            }
        }
    }
}

struct Snapshot: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Save a full-resolution JPEG of the live picture.")
    @OptionGroup var options: CtlOptions

    func run() {
        options.call("snapshot") { r in "snapshot \(r["path"] ?? "") (\(r["width"] ?? "?")x\(r["height"] ?? "?"))" }
    }
}

/// 83456 → "1:23.4"
func formatMs(_ value: Any?) -> String {
    let ms = (value as? Int) ?? Int((value as? Double) ?? 0)
    return String(format: "%d:%02d.%d", ms / 60000, (ms / 1000) % 60, (ms / 100) % 10)
}
