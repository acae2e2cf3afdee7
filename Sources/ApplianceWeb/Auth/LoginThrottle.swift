import Foundation
import ApplianceCore

/// Slows down password guessing: each failed login (or bad bearer token) from a client waits before it is
/// answered, 0.5 s doubling per failure in a row up to 8 s; a success clears the count.
final class LoginThrottle: Sendable {
    static let firstDelay = 0.5, maxDelay = 8.0
    private let failures = Locked<[String: Int]>([:])

    /// Counts a failure and sleeps for the client's delay.
    func failed(client: String) async {
        let count = failures.withLock { all in
            if all.count > 10_000 { all.removeAll() }  // bounded memory
            all[client, default: 0] += 1
            return all[client]!
        }
        try? await Task.sleep(for: .seconds(delay(after: count)))
    }

    func succeeded(client: String) { failures.withLock { _ = $0.removeValue(forKey: client) } }

    func delay(after failures: Int) -> Double {
        min(Self.maxDelay, Self.firstDelay * pow(2, Double(max(0, failures - 1))))
    }
}
