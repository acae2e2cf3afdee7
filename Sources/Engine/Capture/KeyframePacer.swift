/// Which keyframes a recording file indexes as keyframes: the first, and then one at least `interval` after the
/// one before. mp4mux starts a fragment at every keyframe it is given, so an encoder that makes more keyframes than
/// it was asked for (a scene cut, a hardware encoder's own ideas) would otherwise make a fragment, and a `moof`, for
/// each; the others go into the file as ordinary frames (they still decode: a keyframe needs no other frame; a
/// player seeks to the indexed keyframe before them). The live streams are not touched: they get every keyframe.
///
/// A pure value: timestamps passed in (KeyframePacerTests).
package struct KeyframePacer: Sendable {
    /// ns between indexed keyframes (`sync_interval_s`).
    package let interval: UInt64
    /// ns of timestamp jitter forgiven (half a frame): a keyframe due at the interval may come a hair early.
    package let tolerance: UInt64
    private var lastIndexed: UInt64?
    /// Keyframes not indexed as such.
    package private(set) var unindexed = 0

    package init(interval: UInt64, tolerance: UInt64) {
        self.interval = interval
        self.tolerance = tolerance
    }

    /// Whether the keyframe at `pts` (ns) stays a keyframe in the file.
    package mutating func indexes(keyframeAt pts: UInt64) -> Bool {
        if let last = lastIndexed, pts >= last, pts - last + tolerance < interval {
            unindexed += 1
            return false
        }
        lastIndexed = pts
        return true
    }
}
