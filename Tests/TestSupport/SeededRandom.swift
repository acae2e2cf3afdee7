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

extension SeededRandom {
    /// `bytes` with one to eight random edits: a byte replaced, removed or inserted, or one of `insertions` put in.
    /// The fuzz tests' mutator (a malformed message should be refused, never crash what reads it).
    public mutating func mutated(_ bytes: [UInt8], insertions: [[UInt8]]) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...8, using: &self) {
            let at = Int.random(in: 0..<bytes.count, using: &self)
            switch Int.random(in: 0..<4, using: &self) {
            case 0: bytes[at] = UInt8.random(in: 0...255, using: &self)
            case 1: bytes.remove(at: at)
            case 2: bytes.insert(UInt8.random(in: 0...255, using: &self), at: at)
            default: bytes.insert(contentsOf: insertions[Int.random(in: 0..<insertions.count, using: &self)], at: at)
            }
        }
        return bytes
    }
}
