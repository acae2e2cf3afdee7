/// Timing of one recording, measured by pad probes at the entrance of its recording bin (running time, ns).
public struct RecordingTiming: Sendable, Codable, Equatable {
    public var videoFirst: UInt64?
    public var videoLast: UInt64?
    public var videoFrames: UInt64 = 0
    public var audioFirst: UInt64?
    public var audioEnd: UInt64?
    public var audioBuffers: UInt64 = 0
    /// Frames missing at the encoder input (gaps over 1.5 frame intervals) during the recording.
    public var droppedFrames: UInt64 = 0
    public var frameInterval: UInt64
    /// Pipeline clock (running time) when `record start` was handled, and when the first and the latest video
    /// frame entered the recording bin: for start and stop latency.
    public var requestedClock: UInt64?
    public var firstFrameClock: UInt64?
    public var lastFrameClock: UInt64?

    public init(frameInterval: UInt64) { self.frameInterval = frameInterval }

    /// Video duration: first frame to the end of the last one.
    public var durationMs: Int {
        guard let first = videoFirst, let last = videoLast else { return 0 }
        return Int((last + frameInterval - first) / 1_000_000)
    }

    /// Audio start minus video start, in ms (positive: audio starts later).
    public var avOffsetMs: Double? {
        guard let a = audioFirst, let v = videoFirst else { return nil }
        return (Double(a) - Double(v)) / 1_000_000
    }

    /// From the start request to the first frame entering the recording bin.
    public var startLatencyMs: Double? {
        guard let r = requestedClock, let f = firstFrameClock, f >= r else { return nil }
        return Double(f - r) / 1_000_000
    }

    public var audioDurationMs: Int? {
        guard let a = audioFirst, let e = audioEnd else { return nil }
        return Int((e - a) / 1_000_000)
    }
}
