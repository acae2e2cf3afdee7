import CGStreamer

/// A GStreamer time in nanoseconds; `nil` stands for GST_CLOCK_TIME_NONE where an optional is used.
public struct ClockTime: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: UInt64

    public static let none = UInt64.max
    public static let zero = ClockTime(nanoseconds: 0)

    public init(nanoseconds: UInt64) { self.nanoseconds = nanoseconds }
    public init(seconds: Double) { self.nanoseconds = UInt64(max(0, seconds) * 1_000_000_000) }
    public init(milliseconds: UInt64) { self.nanoseconds = milliseconds * 1_000_000 }

    /// Wraps a raw value, mapping GST_CLOCK_TIME_NONE to nil.
    public static func from(_ raw: UInt64) -> ClockTime? { raw == none ? nil : ClockTime(nanoseconds: raw) }

    public var seconds: Double { Double(nanoseconds) / 1_000_000_000 }
    public var milliseconds: Double { Double(nanoseconds) / 1_000_000 }

    public static func < (a: ClockTime, b: ClockTime) -> Bool { a.nanoseconds < b.nanoseconds }
    public static func + (a: ClockTime, b: ClockTime) -> ClockTime {
        ClockTime(nanoseconds: a.nanoseconds &+ b.nanoseconds)
    }
    public static func - (a: ClockTime, b: ClockTime) -> ClockTime {
        ClockTime(nanoseconds: a.nanoseconds > b.nanoseconds ? a.nanoseconds - b.nanoseconds : 0)
    }

    public var description: String { String(format: "%.3fs", seconds) }
}
