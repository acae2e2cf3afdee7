/// Notices the wall clock jumping, as a pure value: the offset between the wall clock and the boot clock
/// (`BootClock.offsetMs`) goes in at each look, a jump comes out when it moved by more than `thresholdMs` since the
/// last look. NTP slews the clock by at most 0.5 ms a second, so a look every second never mistakes a slew for a jump;
/// a step (`date -s`, the first sync of a board without a clock battery, a wrong RTC) is a jump, forwards or back.
package struct ClockJumpDetector: Sendable, Equatable {
    var thresholdMs: Int64 = 2000
    private(set) var lastOffsetMs: Int64?

    package init(thresholdMs: Int64 = 2000) { self.thresholdMs = thresholdMs }

    /// The jump since the last look in milliseconds (positive: forwards), or nil.
    package mutating func observe(offsetMs: Int64) -> Int64? {
        defer { lastOffsetMs = offsetMs }
        guard let last = lastOffsetMs else { return nil }
        let moved = offsetMs - last
        return abs(moved) > thresholdMs ? moved : nil
    }
}
