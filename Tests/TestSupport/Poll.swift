import Foundation

/// The tests' one polling loop: checks a condition until it holds or a deadline passes. Tests wait on the event or
/// the status that says something happened; where only polling can see it (a file's size, a process's end, a
/// counter), they poll it here instead of sleeping a fixed time.
public enum Poll {
    /// Checks `condition` at once, then every `interval` seconds until it holds or `timeout` has passed (a last
    /// check at the deadline); returns whether it held.
    @discardableResult
    public static func until(
        timeout: TimeInterval, every interval: TimeInterval = 0.05,
        _ condition: () throws -> Bool
    ) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if try condition() { return true }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return false }
            Thread.sleep(forTimeInterval: min(interval, left))  // the polling helper: between two checks
        }
    }

    /// `until` for async code: the task sleeps between checks instead of blocking its thread (a cancelled task
    /// stops waiting: false). Named apart from `until` so that async code cannot pick the blocking one by overload.
    @discardableResult
    public static func asyncUntil(
        timeout: TimeInterval, every interval: TimeInterval = 0.05,
        _ condition: () async throws -> Bool
    ) async rethrows -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if try await condition() { return true }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 || Task.isCancelled { return false }
            try? await Task.sleep(for: .seconds(min(interval, left)))  // the polling helper: between two checks
        }
    }
}
