/// When a camera that keeps failing may be tried again: 1 s after its first failure, doubling with each failure in a
/// row, at most 30 s apart. A pure value, time passed in; a camera that works again starts from nothing.
struct RetryBackoff: Sendable, Equatable {
    private(set) var failures = 0
    private(set) var next: ContinuousClock.Instant?

    static let first: Duration = .seconds(1)
    static let longest: Duration = .seconds(30)

    /// The wait after `failures` failures in a row.
    static func delay(after failures: Int) -> Duration {
        guard failures > 0 else { return .zero }
        return min(longest, first * (1 << min(failures - 1, 10)))
    }

    mutating func failed(at now: ContinuousClock.Instant) {
        failures += 1
        next = now + Self.delay(after: failures)
    }

    func allows(_ now: ContinuousClock.Instant) -> Bool { next.map { now >= $0 } ?? true }
}
