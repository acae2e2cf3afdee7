import ApplianceApp
import ApplianceProtocol
import ArgumentParser
import Foundation
import Settings

/// Options every `ctl` subcommand shares.
struct CtlOptions: ParsableArguments {
    @Option(
        name: .long,
        help:
            """
            Control socket (default: $APPLIANCE_SOCKET, else --config's socket, else the installed service's \
            (/etc/appliance/appliance.toml), else ./data/ctl.sock).
            """
    )
    var socket: String?

    @Option(name: .long, help: "Read the socket path from this config file.")
    var config: String?

    @Flag(name: .long, help: "Print the answer as one JSON object.")
    var json = false

    var socketPath: String {
        if let socket { return socket }
        if let env = ProcessInfo.processInfo.environment["APPLIANCE_SOCKET"], !env.isEmpty { return env }
        if let config, let settings = try? ConfigLoader.load(path: config) { return settings.socketPath }
        // Installed as a service (the Debian package): its config names the socket, so `ctl` needs no flags.
        if FileManager.default.fileExists(atPath: Self.serviceConfig),
            let settings = try? ConfigLoader.load(path: Self.serviceConfig)
        {
            return settings.socketPath
        }
        return ApplianceConfig().socketPath
    }

    /// The installed service's config.
    static let serviceConfig = "/etc/appliance/appliance.toml"

    /// Sends a command and prints its typed result (JSON or `text`); exits non-zero with a one-line reason on
    /// failure: 1 when the daemon refused or failed the command, 2 when it cannot be reached.
    func perform<Result>(_ command: Command, text: (Result) -> String) {
        let result: CommandResult
        do {
            let client = try ControlClient(path: socketPath, timeout: 60)
            result = try client.perform(command)
        } catch let error as ApplianceError {
            if json { printJSON(ErrorAnswer(error: error)) }
            fail("\(error.message) (\(error.code.rawValue))")
        } catch {
            if json { printJSON(ErrorAnswer(error: ApplianceError(.unavailable, "\(error)"))) }
            fail("\(error)", code: 2)
        }
        guard let value = result.payload as? Result else {
            fail("the daemon's answer to \(command.name) has an unexpected type")
        }
        if json { print(result.json) } else { print(text(value)) }
    }

    func printJSON(_ value: some Encodable) {
        print((try? WireFormat.compactJSON(value)) ?? "{}")
    }

    /// What `--json` prints for a failed command.
    struct ErrorAnswer: Encodable {
        var ok = false
        var error: ApplianceError
    }
}

struct Ctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Control a running daemon over its socket.",
        subcommands: [
            Status.self, Record.self, Snapshot.self, List.self, Info.self, Rename.self, Delete.self,
            Lock.self, Unlock.self, Protect.self, Export.self, Events.self, ActivityCommand.self, TimelineCommand.self,
            Cameras.self, Switch.self, Play.self, Backup.self,
            Metrics.self, Console.self, Share.self, Shares.self, Unshare.self, UserCommand.self, Version.self,
        ])
    /// Lets the shared options come before the subcommand too: `appliance ctl --json status`.
    @OptionGroup var options: CtlOptions
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show what the appliance is doing.")
    @OptionGroup var options: CtlOptions

    func run() {
        options.perform(.status) { (s: StatusReport) in StatusText.lines(s).joined(separator: "\n") }
    }
}

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Start or stop recording.", subcommands: [Start.self, Stop.self, Toggle.self])
    @OptionGroup var options: CtlOptions

    struct Start: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Start a recording.")
        @OptionGroup var options: CtlOptions
        @Option(name: .long, help: "Title of the clip (default: the date and time).") var title: String?
        @Option(name: .long, help: "Only this channel ([[channel]] name; default: every channel).") var channel: String?

        func run() {
            options.perform(.recordStart(title: title, channel: channel)) { (r: RecordingStarted) in
                "recording \(r.id) \"\(r.title)\""
            }
        }
    }

    struct Stop: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Stop the recording; answers once the file is finalised.")
        @OptionGroup var options: CtlOptions
        @Option(name: .long, help: "Set the clip's title.") var title: String?
        @Option(name: .long, help: "Only this channel ([[channel]] name; default: every channel).") var channel: String?

        func run() {
            options.perform(.recordStop(title: title, channel: channel)) { (r: RecordingResult) in
                """
                saved \(r.path) (\(formatMs(r.durationMs)), \(r.videoFrames) frames, thumbnail \
                \(r.thumbnail ?? "none"))
                """
            }
        }
    }
}

struct Snapshot: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Save a full-resolution JPEG of the live picture.")
    @OptionGroup var options: CtlOptions
    @Option(name: .long, help: "This channel's picture ([[channel]] name; default: the first channel's).")
    var channel: String?

    func run() {
        options.perform(.snapshot(channel: channel)) { (r: SnapshotResult) in
            "snapshot \(r.path) (\(r.width)x\(r.height))"
        }
    }
}

/// 83456 → "1:23.4"
func formatMs(_ ms: Int) -> String {
    String(format: "%d:%02d.%d", ms / 60000, (ms / 1000) % 60, (ms / 100) % 10)
}
