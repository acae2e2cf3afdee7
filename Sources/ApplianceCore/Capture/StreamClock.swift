import Synchronization

/// Running-time facts shared between streaming threads (writers) and the controller (reader).
/// Every access is a short critical section; nothing here ever waits.
final class VideoFlowMonitor: Sendable {
    struct State {
        var lastOutputPTS: UInt64 = .max
        var outputFrames: UInt64 = 0
        var droppedNonMonotonic: UInt64 = 0
        /// Gaps at the encoder input while a recording is running.
        var lastEncoderPTS: UInt64 = .max
        var encoderGaps: UInt64 = 0
        var encoderMissing: UInt64 = 0
    }

    let frameInterval: UInt64
    let state = Mutex(State())

    init(framerate: Int) { frameInterval = 1_000_000_000 / UInt64(max(framerate, 1)) }

    /// After the selector: keep only strictly increasing PTS, so a switch can never send time backwards.
    func acceptOutput(pts: UInt64) -> Bool {
        state.withLock { s in
            if s.lastOutputPTS != .max, pts != .max, pts <= s.lastOutputPTS {
                s.droppedNonMonotonic += 1
                return false
            }
            s.lastOutputPTS = pts
            s.outputFrames += 1
            return true
        }
    }

    /// At the encoder input: counts frames missing in gaps over 1.5 frame intervals.
    func noteEncoderInput(runningTime: UInt64) {
        state.withLock { s in
            defer { s.lastEncoderPTS = runningTime }
            guard s.lastEncoderPTS != .max, runningTime != .max, runningTime > s.lastEncoderPTS else { return }
            let gap = runningTime - s.lastEncoderPTS
            if gap * 2 > frameInterval * 3 {
                s.encoderGaps += 1
                s.encoderMissing += (gap + frameInterval / 2) / frameInterval - 1
            }
        }
    }

    /// Forget the previous input time (the encoder input was closed, a gap there is not a drop).
    func resetEncoderInput() { state.withLock { $0.lastEncoderPTS = .max } }

    var missingAtEncoder: UInt64 { state.withLock { $0.encoderMissing } }
}

/// The encoder input gate: closed while nothing records (so x264 burns no CPU), open during a recording.
///
/// A recording starts at a time chosen in advance: the first frame on the camera's frame grid at least `lead`
/// after the request. Both cut probes know that time from the start, so neither stream has to wait for the
/// other to find out where the clip begins (the encoded test audio reaches its tee before the video frame of
/// the same time reaches the encoder).
final class EncoderGate: Sendable {
    struct State {
        var open = false
        /// Frames earlier than this (minus half an interval of jitter) stay out.
        var startAt: UInt64 = .max
        var firstAdmitted: UInt64 = .max
        var lastSeen: UInt64 = .max
        var permanent = false
    }

    let frameInterval: UInt64
    let state = Mutex(State())

    init(frameInterval: UInt64) { self.frameInterval = frameInterval }

    /// Opens the gate for frames from the first grid time at or after `earliest`; returns that start time.
    @discardableResult
    func open(earliest: UInt64) -> UInt64 {
        state.withLock { s in
            guard !s.permanent else { return earliest }
            var start = earliest
            if s.lastSeen != .max, earliest > s.lastSeen {
                let steps = (earliest - s.lastSeen + frameInterval - 1) / frameInterval
                start = s.lastSeen + steps * frameInterval
            }
            s.open = true
            s.startAt = start
            s.firstAdmitted = .max
            return start
        }
    }

    /// Pre-record: the encoder runs all the time, every frame passes.
    func openPermanently() {
        state.withLock { s in
            s.open = true
            s.startAt = 0
            s.firstAdmitted = 0
            s.permanent = true
        }
    }

    func close() {
        state.withLock { s in
            guard !s.permanent else { return }
            s.open = false
            s.startAt = .max
            s.firstAdmitted = .max
        }
    }

    /// Called for each raw frame at the encoder input; returns whether it may pass.
    func admit(runningTime rt: UInt64) -> Bool {
        state.withLock { s in
            if rt != .max { s.lastSeen = rt }
            guard s.open, rt != .max else { return false }
            if s.firstAdmitted == .max {
                guard rt + frameInterval / 2 >= s.startAt else { return false }
                s.firstAdmitted = rt
            }
            return true
        }
    }

    /// The planned start time of the open recording.
    var startAt: UInt64? {
        let t = state.withLock { $0.startAt }
        return t == .max ? nil : t
    }

    /// Running time of the first frame admitted since opening, if any yet.
    var firstRunningTime: UInt64? {
        let t = state.withLock { $0.firstAdmitted }
        return t == .max ? nil : t
    }
}
