import Foundation

/// A small deterministic generator (SplitMix64), so a test that draws at random can be replayed from its seed.
public struct SeededRandom: RandomNumberGenerator {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The seed a test runs with: `variable` from the environment when set (to replay a failure), else a new one.
    public static func seed(from variable: String) -> UInt64 {
        ProcessInfo.processInfo.environment[variable].flatMap(UInt64.init) ?? UInt64.random(in: 1...999_999)
    }
}
