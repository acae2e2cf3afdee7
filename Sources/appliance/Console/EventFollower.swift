import ApplianceProtocol
import Foundation

/// Follows the daemon's event stream on its own thread (the blocking reads of one subscribed connection) and
/// applies each event to the shared model; relevant events ask for a fresh `status`. When the connection ends the
/// model says so (`disconnected`) and the main loop ends the console.
///
/// `@unchecked Sendable`: the client is used by the follower's thread only, once `start()` has handed it over.
final class EventFollower: @unchecked Sendable {
    private let client: ControlClient
    private let state: ConsoleState
    private let commands: CommandSender

    /// `client` is already subscribed (`ControlClient.subscribe()`).
    init(subscribed client: ControlClient, state: ConsoleState, commands: CommandSender) {
        (self.client, self.state, self.commands) = (client, state, commands)
    }

    func start() {
        let thread = Thread { [self] in follow() }
        thread.name = "console-events"
        thread.start()
    }

    private func follow() {
        while true {
            let line: Data
            do {
                line = try client.readLine()
            } catch {
                state.update { $0.model.disconnected = "\(error)" }
                return
            }
            // A line this client cannot read (a newer daemon's event) is skipped, not fatal.
            guard let record = try? WireFormat.decoder.decode(EventRecord.self, from: line) else { continue }
            let refresh = state.update { $0.model.apply(event: record.event) }
            if refresh { commands.refreshStatus() }
        }
    }
}

/// Sends the keys' commands (and status refreshes) over the second connection, one at a time on a serial queue,
/// so the keyboard never waits for the daemon (`record.stop` answers only once the file is finalised).
///
/// `@unchecked Sendable`: the client is used on `queue` only.
final class CommandSender: @unchecked Sendable {
    private let client: ControlClient
    private let state: ConsoleState
    private let queue = DispatchQueue(label: "console-commands")

    init(client: ControlClient, state: ConsoleState) {
        (self.client, self.state) = (client, state)
    }

    /// Sends `command`; its answer (or error) becomes the console's message.
    func send(_ command: Command) {
        queue.async { [self] in
            do {
                let result = try client.perform(command)
                state.update { $0.model.apply(result: result) }
            } catch let error as ApplianceError {
                state.update { $0.model.say(error.message, error: true) }
                // The screen may have guessed (STOPPING): let the daemon say what is true.
                refreshStatus()
            } catch {
                state.update { $0.model.say("\(command.name): \(error)", error: true) }
            }
        }
    }

    /// Asks for `status` once, however many events asked for it while one was already queued.
    func refreshStatus() {
        let queued = state.read { shared in
            defer { shared.statusQueued = true }
            return shared.statusQueued
        }
        guard !queued else { return }
        queue.async { [self] in
            state.read { $0.statusQueued = false }
            guard let result = try? client.perform(.status) else { return }
            state.update { $0.model.apply(result: result) }
        }
    }
}
