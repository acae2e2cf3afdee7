import ApplianceProtocol
import Foundation

/// The daemon's event stream, typed: waits are on what the daemon says happened, not on fixed sleeps.
final class TypedEvents {
    private let client: ControlClient

    /// Subscribes; each wait for an event lasts at most `timeout` seconds (then throws).
    init(_ daemon: DaemonProcess, timeout: TimeInterval) throws {
        client = try ControlClient(path: daemon.socketPath, timeout: timeout)
        try client.subscribe()
    }

    /// Reads events until one matches; returns the value `match` made of it.
    @discardableResult
    func waitFor<T>(_ what: String, _ match: (ApplianceEvent) -> T?) throws -> T {
        while true {
            let record: EventRecord
            do { record = try client.nextEvent() } catch { throw DaemonError(message: "waiting for \(what): \(error)") }
            if let value = match(record.event) { return value }
        }
    }

    /// Reads events until every one of `matches` has matched one of them, in any order (a command's own event and
    /// the gesture that sent it, say); returns what each made, in the order given.
    func waitForAll<T>(_ what: String, _ matches: [(ApplianceEvent) -> T?]) throws -> [T] {
        var found = [T?](repeating: nil, count: matches.count)
        while found.contains(where: { $0 == nil }) {
            let record: EventRecord
            do { record = try client.nextEvent() } catch { throw DaemonError(message: "waiting for \(what): \(error)") }
            for index in matches.indices where found[index] == nil {
                if let value = matches[index](record.event) {
                    found[index] = value
                    break
                }
            }
        }
        return found.map { $0! }
    }
}
