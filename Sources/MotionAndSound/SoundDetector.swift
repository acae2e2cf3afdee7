/// Sound detection as a pure value: the audio branch's levels (GStreamer's `level`: RMS and peak in dBFS, per
/// interval) and their times go in. Sound above `thresholdDb` (RMS) for `minDurationS` is an event; it ends after
/// `releaseS` below the threshold. A click (one loud interval) is not an event; nor is a steady hum below the
/// threshold, however long.
public struct SoundDetector: Sendable {
    public struct Settings: Sendable, Equatable {
        /// RMS level (dBFS) that counts as sound.
        public var thresholdDb: Double = -30
        public var minDurationS: Double = 0.5
        public var releaseS: Double = 2.0
        /// A run of loud intervals survives a quiet gap this long (between words, between barks).
        public var maxGapS: Double = 0.3
        public init() {}
    }

    public let settings: Settings
    public private(set) var active = false
    private var runStart: Double?
    private var runPeak = -Double.infinity
    private var lastLoud: Double?

    public init(settings: Settings = Settings()) { self.settings = settings }

    /// The loudest RMS level (dBFS) of the event going on; nil without one.
    public var peakDb: Double? { active ? runPeak : nil }

    /// One interval's RMS level at `time` (seconds, rising); returns the event's start or end when this changes it.
    /// A level that is not a number (GStreamer gives -inf for digital silence) counts as silence.
    public mutating func observe(rmsDb: Double, at time: Double) -> MotionDetector.Transition? {
        let loud = rmsDb.isFinite && rmsDb >= settings.thresholdDb
        if !active, let last = lastLoud, time - last > settings.maxGapS { runStart = nil }
        guard loud else {
            guard active, let last = lastLoud, time - last >= settings.releaseS else { return nil }
            (active, lastLoud, runStart) = (false, nil, nil)
            return .ended(at: last)
        }
        if runStart == nil { (runStart, runPeak) = (time, rmsDb) }
        runPeak = max(runPeak, rmsDb)
        lastLoud = time
        guard !active, let start = runStart, time - start >= settings.minDurationS else { return nil }
        active = true
        return .started(at: start)
    }
}
