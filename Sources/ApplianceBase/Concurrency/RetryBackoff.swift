/// When a camera that keeps failing may be tried again: 1 s after its first failure, doubling with each failure in a
/// row, at most 30 s apart. A pure value, time passed in; a camera that works again starts from nothing.
package struct RetryBackoff: Sendable, Equatable {
    private(set) var failures = 0
    private(set) var next: ContinuousClock.Instant?

    package init(next: ContinuousClock.Instant? = nil) {
        self.next = next
    }

    package static let first: Duration = .seconds(1)
    package static let longest: Duration = .seconds(30)

    /// The wait after `failures` failures in a row.
    package static func delay(after failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        return min(longest, first * (1 << min(failures - 1, 10)))
    }

    package mutating func failed(at now: ContinuousClock.Instant) {
        failures += 1
        next = now + Self.delay(after: failures)
    }

    package func allows(_ now: ContinuousClock.Instant) -> Bool { next.map { now >= $0 } ?? true }
}
