/// Counts of observations by upper bound, as Prometheus keeps a histogram: `counts[i]` observations were at most
/// `bounds[i]` (cumulative), `count` in all, summing to `sum`.
public struct Histogram: Sendable, Equatable {
    public let bounds: [Double]
    public private(set) var counts: [UInt64]
    public private(set) var count: UInt64 = 0
    public private(set) var sum = 0.0

    public init(bounds: [Double]) {
        self.bounds = bounds.sorted()
        counts = [UInt64](repeating: 0, count: bounds.count)
    }

    public mutating func record(_ value: Double) {
        guard value.isFinite else { return }
        count += 1
        sum += value
        for (i, bound) in bounds.enumerated() where value <= bound { counts[i] += 1 }
    }
}
