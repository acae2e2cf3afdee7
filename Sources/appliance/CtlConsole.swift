import ApplianceBase
import ApplianceProtocol
import ArgumentParser
import Foundation

struct Console: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A full-screen terminal view driven by single keys: the keyboard shutter over SSH.",
        discussion: """
            Shows the state, the elapsed time, the camera, free space and the last clip, following the daemon's \
            event stream. Keys: space record/stop, s snapshot, p protect (\(Int(Command.defaultProtectWindow)) s \
            before and after), n next camera, q or Ctrl-C quit. Exits 2 when the daemon cannot be reached or goes away.
            """)
    @OptionGroup var options: CtlOptions

    func validate() throws {
        if options.json {
            throw ValidationError("the console has no --json form (use `ctl events --json` to follow events)")
        }
    }

    func run() {
        signal(SIGPIPE, SIG_IGN)  // a write to a daemon that went away is an error to show, not the end of the process
        let path = options.socketPath
        // Connect and read the starting state before the terminal changes, so a failure is the usual ctl line.
        let events: ControlClient
        let client: ControlClient
        var model = ConsoleModel()
        model.socketPath = path
        do {
            events = try ControlClient(path: path, timeout: 0)
            try events.subscribe()  // first, so no event falls between the status below and the stream
            client = try ControlClient(path: path, timeout: 60)
            model.apply(result: try client.perform(.status))
            // Two: the newest may be the recording in progress.
            model.apply(result: try client.perform(.list(page: 1, perPage: 2)))
        } catch let error as ApplianceError {
            fail("\(error.message) (\(error.code.rawValue))")
        } catch {
            fail("\(error)", code: 2)
        }

        let outcome: ConsoleSession.Outcome
        do {
            let terminal = try Terminal()
            let state = try ConsoleState(model)
            let commands = CommandSender(client: client, state: state)
            EventFollower(subscribed: events, state: state, commands: commands).start()
            try terminal.enter()
            outcome = ConsoleSession(terminal: terminal, state: state, commands: commands).run()
        } catch {
            fail("\(error)")
        }
        switch outcome {
        case .quit: Foundation.exit(0)
        case .disconnected(let reason): fail("the daemon went away: \(reason)", code: 2)
        }
    }
}

extension Record {
    struct Toggle: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Start a recording when idle, stop it when recording.")
        @OptionGroup var options: CtlOptions
        @Option(name: .long, help: "Title of the clip (started: its title; stopped: sets it).") var title: String?
        @Option(name: .long, help: "Only this channel ([[channel]] name; default: every channel).") var channel: String?

        func run() {
            options.perform(.recordToggle(title: title, channel: channel)) { (r: ToggleResult) in
                if let started = r.started { return "started: recording \(started.id) \"\(started.title)\"" }
                if let stopped = r.stopped {
                    return
                        """
                        stopped: saved \(stopped.path) (\(formatMs(stopped.durationMs)), \(stopped.videoFrames) \
                        frames, thumbnail \(stopped.thumbnail ?? "none"))
                        """
                }
                return "nothing happened"
            }
        }
    }
}
