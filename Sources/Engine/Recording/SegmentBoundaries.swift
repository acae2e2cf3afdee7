/// Loop recording's seams, measured where frames enter the recording bins: at each cut, the last video frame of
/// the closed segment against the first frame of the next. A seamless cut has them one frame interval apart; more
/// is frames lost at the seam, less is frames written twice (metrics: segment boundary gaps).
package struct SegmentBoundaries: Sendable, Equatable {
    /// Boundaries measured.
    package var count: UInt64 = 0
    /// Frame slots left empty between a segment's last frame and the next one's first, summed.
    package var missingFrames: UInt64 = 0
    /// Frames of a segment that overlapped the one before it, summed.
    package var repeatedFrames: UInt64 = 0
    /// The largest distance seen between the two frames beyond one interval, ns.
    package var largestGapNs: UInt64 = 0

    package init(count: UInt64 = 0, missingFrames: UInt64 = 0, repeatedFrames: UInt64 = 0, largestGapNs: UInt64 = 0) {
        self.count = count
        self.missingFrames = missingFrames
        self.repeatedFrames = repeatedFrames
        self.largestGapNs = largestGapNs
    }

    /// Notes one boundary from the running times (ns) of the closed segment's last frame and the next one's first.
    package mutating func note(lastFrame: UInt64, nextFirstFrame: UInt64, frameInterval: UInt64) {
        guard frameInterval > 0 else { return }
        count += 1
        let expected = lastFrame &+ frameInterval
        // Half an interval of slack each way: timestamps on the output grid are exact, camera ones jitter.
        if nextFirstFrame > expected {
            let gap = nextFirstFrame - expected
            largestGapNs = max(largestGapNs, gap)
            missingFrames += (gap + frameInterval / 2) / frameInterval
        } else if nextFirstFrame < expected {
            repeatedFrames += (expected - nextFirstFrame + frameInterval / 2) / frameInterval
        }
    }
}
