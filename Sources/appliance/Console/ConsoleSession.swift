import ApplianceBase
import ApplianceProtocol
import Dispatch
import Foundation
import SystemCalls

/// The console's main loop on the main thread: waits in `poll` for a key, a wake-up from another thread or the
/// next second of the elapsed time, then draws the model. Nothing here asks the daemon anything per tick: the
/// elapsed time is counted from the recording's start on this machine's clock.
final class ConsoleSession {
    /// How the console ended.
    enum Outcome {
        case quit
        /// The daemon went away: why.
        case disconnected(String)
    }

    private let terminal: Terminal
    private let state: ConsoleState
    private let commands: CommandSender
    private var signalSources: [DispatchSourceSignal] = []

    init(terminal: Terminal, state: ConsoleState, commands: CommandSender) {
        (self.terminal, self.state, self.commands) = (terminal, state, commands)
    }

    /// Runs until `q`, Ctrl-C, a signal or the daemon going away; the terminal is restored before it returns.
    func run() -> Outcome {
        watchSignals()
        defer {
            for source in signalSources { source.cancel() }
            terminal.restore()
        }
        var fds = [
            pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0),
            pollfd(fd: state.wake.readFD, events: Int16(POLLIN), revents: 0),
        ]
        var full = true
        while true {
            let (model, resized, quit) = state.read { shared in
                defer { shared.resized = false }
                return (shared.model, shared.resized, shared.quit)
            }
            if quit { return .quit }
            draw(model, full: full || resized)
            full = false
            if let gone = model.disconnected {
                // Long enough to be seen; the one-line reason follows on the restored screen.
                Thread.sleep(forTimeInterval: 1)
                return .disconnected(gone)
            }

            let timeout = ConsoleRenderer.nextTick(model, now: Date()).map { Int32(($0 * 1000).rounded(.up)) } ?? -1
            for index in fds.indices { fds[index].revents = 0 }
            do {
                try SystemCall.run("poll") { poll(&fds, nfds_t(fds.count), timeout) }
            } catch {
                return .disconnected("poll failed: \(error.reason)")
            }
            if fds[1].revents != 0 { state.wake.drain() }
            if fds[0].revents & Int16(POLLIN) != 0 {
                var buffer = [UInt8](repeating: 0, count: 256)
                let count = read(STDIN_FILENO, &buffer, buffer.count)
                if count == 0 { return .quit }  // the terminal went away
                if count > 0, handle(ConsoleKey.parse(Array(buffer[0..<count]))) { return .quit }
            } else if fds[0].revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 {
                return .quit
            }
        }
    }

    /// Acts on keys; returns true on quit.
    private func handle(_ keys: [ConsoleKey]) -> Bool {
        for key in keys {
            switch key {
            case .quit:
                return true
            case .toggleRecording:
                state.update { shared in
                    if shared.model.state == .recording {
                        shared.model.state = .stopping
                        shared.model.say("stopping…")
                    } else if shared.model.state == .idle {
                        shared.model.say("starting…")
                    }
                }
                commands.send(.recordToggle(title: nil))
            case .snapshot:
                commands.send(.snapshot())
            case .protect:
                commands.send(.protect(before: Command.defaultProtectWindow, after: Command.defaultProtectWindow))
            case .nextCamera:
                commands.send(.switchCamera(.next(channel: nil)))
            }
        }
        return false
    }

    private func draw(_ model: ConsoleModel, full: Bool) {
        let size = terminal.size
        // One column spare: text in the last column leaves the cursor waiting to wrap, and clearing to the end of
        // the line from there would erase that column.
        terminal.draw(ConsoleRenderer.lines(model, now: Date(), width: size.width - 1, height: size.height), full: full)
    }

    /// SIGWINCH redraws in full; SIGTERM, SIGHUP and SIGINT (from outside: in raw mode Ctrl-C is a key) end the
    /// console like `q`, so the terminal is restored. Dispatch sources run the handlers on a queue, not in the
    /// signal's context.
    private func watchSignals() {
        let state = self.state
        for (number, resize) in [(SIGWINCH, true), (SIGTERM, false), (SIGHUP, false), (SIGINT, false)] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                state.update { shared in if resize { shared.resized = true } else { shared.quit = true } }
            }
            source.resume()
            signalSources.append(source)
        }
    }
}
