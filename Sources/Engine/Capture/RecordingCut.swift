/// The frame-exact cut rules of one recording: which encoded video frames and AAC frames belong to its file. A pure
/// value: `RecordingSession`'s probes hand it each buffer's running time and do what it answers, under a lock, so
/// every rule here is unit-tested without a pipeline (RecordingCutTests).
package struct RecordingCut: Sendable {
    package enum Phase: Sendable { case waiting, recording, ended }

    /// What a probe does with the buffer it asked about.
    package enum Verdict: Equatable, Sendable {
        /// Not part of the file (before its start, or after its end).
        case drop
        /// The file's first buffer of this stream.
        case start
        /// Part of the file.
        case keep
        /// The stream's end: this buffer is not in the file, and the probe sends EOS into the recording bin.
        case end
        /// Part of the file and its stream's last before the stop (`endsBeforeTheStop`): the probe sends EOS after
        /// it, and what follows is left for the next recording.
        case last

        var isKept: Bool { self == .start || self == .keep || self == .last }
    }

    package var video = Phase.waiting
    package var audio = Phase.waiting
    /// The video starts on the first keyframe at or after this (pre-record: request − window).
    /// Nil without pre-record: the first frame the encoder gate admitted.
    package var videoFrom: UInt64?
    /// Audio that starts before this is not part of the clip. Without pre-record: the planned start;
    /// with pre-record: the first video frame (the held audio is released once it is known).
    package var audioFrom: UInt64?
    package var stopAt: UInt64 = .max
    /// Loop recording: the file ends just before the first keyframe at or after this (that keyframe opens the
    /// next segment) and before the first audio frame starting at or after it. Every buffer goes to one file.
    package var cutAt: UInt64 = .max
    /// The bin refused data (its file could not be written): both streams ended there.
    package var refused = false
    /// Ends each stream on its last buffer before `stopAt` (`.last`) instead of on the first one after it (`.end`,
    /// which drops that buffer): a recording fed by the pre-record window leaves the next buffer in the window.
    package var endsBeforeTheStop = false
    package var timing: RecordingTiming

    package init(frameInterval: UInt64) {
        timing = RecordingTiming(frameInterval: frameInterval)
    }

    /// Half a frame absorbs timestamp jitter at both ends (30 fps does not divide a second: a frame due at a
    /// boundary may carry a timestamp a nanosecond short of it).
    private var halfFrame: UInt64 { timing.frameInterval / 2 }

    /// An encoded video frame at running time `time` (`.max`: none). `gateStart` is read only while the video waits
    /// for a start without a `videoFrom`: the first running time the encoder gate admitted. `clock`: the pipeline's
    /// running time now, for the key-to-file latency.
    package mutating func video(at time: UInt64, keyframe: Bool, clock: UInt64?, gateStart: @autoclosure () -> UInt64?)
        -> Verdict
    {
        switch video {
        case .waiting:
            guard let threshold = videoFrom ?? gateStart(), keyframe, time != .max, time >= threshold else {
                return .drop
            }
            video = .recording
            if audioFrom == nil { audioFrom = time }
            timing.firstFrameClock = clock
            timing.lastFrameClock = clock
            timing.videoFirst = time
            timing.videoLast = time
            timing.videoFrames = 1
            return .start
        case .recording:
            // Frames before the stop time stay (it is a frame boundary); a keyframe at the cut opens the next file.
            if time != .max, time + halfFrame > stopAt || (keyframe && time + halfFrame >= cutAt) {
                video = .ended
                return .end
            }
            timing.videoFrames += 1
            timing.videoLast = time
            timing.lastFrameClock = clock
            // The next frame, due a frame interval on, would be at or past the stop.
            if endsBeforeTheStop, stopAt != .max, time != .max, time + timing.frameInterval + halfFrame > stopAt {
                video = .ended
                return .last
            }
            return .keep
        case .ended:
            return .drop
        }
    }

    /// An AAC frame starting at running time `time` and lasting `duration` (`.max`: unknown). Audio frames belong to
    /// the file in which they start: from the start (or cut) time until the stop (or next cut) time. With both ends on
    /// the video frame grid, a file's audio adds up to its video within one AAC frame, and a continuing segment takes
    /// exactly the frames the one before left.
    package mutating func audio(at time: UInt64, duration: UInt64) -> Verdict {
        let end = time == .max ? time : time + (duration == .max ? 0 : duration)
        switch audio {
        case .waiting:
            guard let threshold = audioFrom, time != .max, time >= threshold else { return .drop }
            audio = .recording
            timing.audioFirst = time
            timing.audioEnd = end
            timing.audioBuffers = 1
            return .start
        case .recording:
            if time >= min(stopAt, cutAt) {
                audio = .ended
                return .end
            }
            timing.audioBuffers += 1
            timing.audioEnd = end
            // AAC frames follow each other: the next one starts where this one ends, at or past the stop.
            if endsBeforeTheStop, stopAt != .max, end != .max, time != .max, end >= stopAt {
                audio = .ended
                return .last
            }
            return .keep
        case .ended:
            return .drop
        }
    }

    /// A stream's buffer could not be delivered: the bin refused it, and both streams end there.
    package mutating func refuse() {
        (video, audio, refused) = (.ended, .ended, true)
    }

    /// Ends one stream from outside its data flow (it stopped flowing). True if it had not ended yet, so EOS is due.
    package mutating func endStream(video isVideo: Bool) -> Bool {
        let wasEnded = (isVideo ? video : audio) == .ended
        if isVideo { video = .ended } else { audio = .ended }
        return !wasEnded
    }

    /// The last frame boundary at or after `time` on the grid of the first frame: the frame showing at `time` is the
    /// last one in. Before the first frame, `time` itself.
    package func frameBoundary(atOrAfter time: UInt64) -> UInt64 {
        let interval = timing.frameInterval
        guard let first = timing.videoFirst, time > first else { return time }
        return first + (time - first + interval - 1) / interval * interval
    }
}
