import ApplianceCore
import Foundation
import ApplianceBase

/// Slows down password guessing per client address. After a failed login (or a bad bearer token) the client's
/// attempts are taken one at a time, spaced by a delay of 0.5 s that doubles per failure in a row up to 8 s, and
/// the failure's answer waits out its delay too. Attempts sent in parallel queue behind each other, so several
/// connections guess no faster than one. A success clears the count.
final class LoginThrottle: Sendable {
    static let firstDelay = 0.5, maxDelay = 8.0

    private struct Client {
        var failures = 0
        /// No attempt of this client is checked before this moment.
        var nextSlot = Date.distantPast
    }
    private let clients = Locked<[String: Client]>([:])

    /// Waits for this client's turn before its password is checked (no wait for a client without failures).
    func waitForTurn(client: String) async {
        let now = Date()
        await sleep(until: reserveTurn(client: client, now: now), from: now)
    }

    /// Counts a failure and waits out its delay before the answer goes back.
    func failed(client: String) async {
        let now = Date()
        await sleep(until: recordFailure(client: client, now: now), from: now)
    }

    /// When this client's next attempt may be checked; the one after it gets the following slot.
    func reserveTurn(client: String, now: Date) -> Date {
        clients.withLock { all -> Date in
            guard var entry = all[client], entry.failures > 0 else { return now }
            let slot = max(now, entry.nextSlot)
            entry.nextSlot = slot.addingTimeInterval(delay(after: entry.failures))
            all[client] = entry
            return slot
        }
    }

    /// Counts a failure; returns when its answer may go back.
    func recordFailure(client: String, now: Date) -> Date {
        clients.withLock { all -> Date in
            if all.count > 10_000 { all.removeAll() }  // bounded memory
            var entry = all[client] ?? Client()
            entry.failures += 1
            entry.nextSlot = max(entry.nextSlot, now.addingTimeInterval(delay(after: entry.failures)))
            all[client] = entry
            return entry.nextSlot
        }
    }

    func succeeded(client: String) { clients.withLock { _ = $0.removeValue(forKey: client) } }

    func delay(after failures: Int) -> Double {
        min(Self.maxDelay, Self.firstDelay * pow(2, Double(max(0, failures - 1))))
    }

    private func sleep(until: Date, from now: Date) async {
        let seconds = until.timeIntervalSince(now)
        if seconds > 0 { try? await Task.sleep(for: .seconds(seconds)) }
    }
}
