import ApplianceApp
import ApplianceProtocol
import Foundation
import XCTest

/// A control connection subscribed to the daemon's event stream (`events`): reads events one per line.
final class EventListener {
    struct Event {
        var name: String
        var data: [String: Any]
        var time: String?
    }

    private let client: ControlClient

    /// Subscribes; reading an event waits at most `timeout` seconds (then throws, failing the test).
    init(_ daemon: DaemonProcess, timeout: TimeInterval) throws {
        client = try ControlClient(path: daemon.socketPath, timeout: timeout)
        let answer = try client.call("events")
        guard answer["ok"] as? Bool == true else { throw DaemonError(message: "events refused: \(answer)") }
    }

    func next() throws -> Event {
        let event = try XCTUnwrap(try JSONSerialization.jsonObject(with: client.readLine()) as? [String: Any])
        return Event(
            name: event["event"] as? String ?? "", data: event["data"] as? [String: Any] ?? [:],
            time: event["time"] as? String)
    }

    /// Reads until an event named `name` whose data satisfies `matches`; returns its data.
    @discardableResult
    func waitFor(_ name: String, where matches: ([String: Any]) -> Bool = { _ in true }) throws -> [String: Any] {
        while true {
            let event = try next()
            if event.name == name, matches(event.data) { return event.data }
        }
    }
}
