import ApplianceBase
import Synchronization

/// The output clock after the input-selector, and flow facts shared between streaming threads (writers) and the
/// controller (reader). Every access is a short critical section; nothing here ever waits.
///
/// Frames are snapped onto one grid (first frame + n × 1/framerate): cameras of different phase, the filler and a
/// switch between them all come out evenly spaced, and a frame whose slot is already taken is dropped, so PTS only
/// ever moves forward.
package final class VideoFlowMonitor: Sendable {
    package struct State {
        var gridStart: UInt64 = .max
        var lastSlot: Int64 = -1
        package var outputFrames: UInt64 = 0
        /// Frames dropped because their slot was already taken (a switch between cameras of different phase).
        package var slotCollisions: UInt64 = 0
        /// Output slots left empty (a stall upstream of the selector longer than `maxFill`).
        package var missingSlots: UInt64 = 0
        /// Output slots filled by repeating the last frame (switching away from a camera with more latency).
        package var filledSlots: UInt64 = 0
        /// Gaps at the encoder input while a recording is running.
        var lastEncoderPTS: UInt64 = .max
        var encoderGaps: UInt64 = 0
        package var encoderMissing: UInt64 = 0
        /// A handover's new source: its first frame at the encoder input (PTS at or after `from`) fires the shot.
        var arrivalWatch: (from: UInt64, shot: OneShot<ContinuousClock.Instant>)?
    }

    package let framerate: UInt64
    package let frameInterval: UInt64
    package let state = Mutex(State())

    package init(framerate: Int) {
        self.framerate = UInt64(max(framerate, 1))
        frameInterval = 1_000_000_000 / self.framerate
    }

    /// Longest gap held with the last frame (longer ones are real stalls and stay visible as gaps).
    static let maxFill: Int64 = 15

    /// Both take the frame's running time (the selector output probe computes it from the frame's segment).
    /// When a frame would leave empty slots before it (a switch from a camera whose frames reach the selector later
    /// than the new source's), the slots to fill with the last frame: (first PTS, count). Changes nothing.
    func gapBefore(time: UInt64) -> (start: UInt64, count: Int)? {
        guard time != .max else { return nil }
        return state.withLock { s -> (UInt64, Int)? in
            guard s.gridStart != .max, s.lastSlot >= 0, time > s.gridStart else { return nil }
            let slot = Int64(((time - s.gridStart) * framerate + 500_000_000) / 1_000_000_000)
            let missing = slot - s.lastSlot - 1
            guard missing > 0, missing <= Self.maxFill else { return nil }
            return (s.gridStart + UInt64(s.lastSlot + 1) * 1_000_000_000 / framerate, Int(missing))
        }
    }

    /// A handover boundary for a new source whose first frame has running time `time` (see `Handover`): half an
    /// interval before the slot that frame falls in, or before the first slot after every frame shown or let through
    /// by the old source (`oldSourcePassed`: a frame still on its way from the selector's input to this monitor),
    /// if that is later. Being half-way between slots, it splits frames of any phase exactly as the snapping in
    /// `output(time:)` does.
    package func handoverBoundary(firstFrame time: UInt64, oldSourcePassed: UInt64?) -> UInt64 {
        state.withLock { s in
            guard s.gridStart != .max else { return time }
            let passed = oldSourcePassed.map { slotIndex($0, s) } ?? s.lastSlot
            let slot = max(slotIndex(time, s), max(s.lastSlot, passed) + 1)
            let slotTime = Int64(s.gridStart) + slot * Int64(frameInterval)
            return UInt64(max(0, slotTime - Int64(frameInterval / 2)))
        }
    }

    private func slotIndex(_ time: UInt64, _ s: State) -> Int64 {
        guard time > s.gridStart else {
            return -Int64(((s.gridStart - time) * framerate + 500_000_000) / 1_000_000_000)
        }
        return Int64(((time - s.gridStart) * framerate + 500_000_000) / 1_000_000_000)
    }

    /// Fires `shot` with the arrival instant of the first frame at the encoder input whose PTS is at least `from`.
    package func watchEncoderArrival(from time: UInt64, _ shot: OneShot<ContinuousClock.Instant>) {
        state.withLock { $0.arrivalWatch = (time, shot) }
    }

    /// Every raw frame offered to the encoder branch (before the gate), with its PTS (running time here).
    package func noteEncoderArrival(runningTime: UInt64) {
        let shot = state.withLock { s -> OneShot<ContinuousClock.Instant>? in
            guard let watch = s.arrivalWatch, runningTime != .max, runningTime >= watch.from else { return nil }
            s.arrivalWatch = nil
            return watch.shot
        }
        shot?.fire(.now)
    }

    /// Counts frames inserted to hold the last picture over a gap.
    func noteFilled(_ count: Int) { state.withLock { $0.filledSlots += UInt64(count) } }

    /// Decides the output PTS of a frame leaving the selector; nil drops it.
    package func output(time: UInt64) -> UInt64? {
        guard time != .max else { return nil }
        return state.withLock { s -> UInt64? in
            if s.gridStart == .max { s.gridStart = time }
            guard time + frameInterval / 2 >= s.gridStart else {
                s.slotCollisions += 1
                return nil
            }
            let offset = time > s.gridStart ? time - s.gridStart : 0
            let slot = Int64((offset * framerate + 500_000_000) / 1_000_000_000)
            guard slot > s.lastSlot else {
                s.slotCollisions += 1
                return nil
            }
            if s.lastSlot >= 0, slot > s.lastSlot + 1 { s.missingSlots += UInt64(slot - s.lastSlot - 1) }
            s.lastSlot = slot
            s.outputFrames += 1
            return s.gridStart + UInt64(slot) * 1_000_000_000 / framerate
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

    package var missingAtEncoder: UInt64 { state.withLock { $0.encoderMissing } }

    package var snapshot: State { state.withLock { $0 } }
}

/// The encoder input gate: closed while nothing records or streams (so x264 burns no CPU), open during a recording,
/// and held open while a live stream (RTSP) has viewers: they watch the recording's own encoded stream.
///
/// A recording starts at a time chosen in advance: the first frame on the camera's frame grid at least `lead`
/// after the request. Both cut probes know that time from the start, so neither stream has to wait for the
/// other to find out where the clip begins (the encoded test audio reaches its tee before the video frame of
/// the same time reaches the encoder).
package final class EncoderGate: Sendable {
    package struct State {
        package var open = false
        /// Frames earlier than this (minus half an interval of jitter) stay out.
        var startAt: UInt64 = .max
        var firstAdmitted: UInt64 = .max
        var lastSeen: UInt64 = .max
        var permanent = false
        /// Live streams holding the gate open for their viewers (`holdForStreaming`).
        package var streams = 0
    }

    package let frameInterval: UInt64
    package let state = Mutex(State())

    package init(frameInterval: UInt64) { self.frameInterval = frameInterval }

    /// Opens the gate for frames from the first grid time at or after `earliest`; returns that start time.
    /// `wasFlowing`: frames were already passing (pre-record, or a live stream's viewers), so the encoder is mid-GOP
    /// and the recording's first frame needs a keyframe asked for at that time.
    @discardableResult
    package func open(earliest: UInt64) -> (start: UInt64, wasFlowing: Bool) {
        state.withLock { s in
            guard !s.permanent else { return (earliest, true) }
            let wasFlowing = s.streams > 0
            var start = earliest
            if s.lastSeen != .max, earliest > s.lastSeen {
                let steps = (earliest - s.lastSeen + frameInterval - 1) / frameInterval
                start = s.lastSeen + steps * frameInterval
            }
            s.open = true
            s.startAt = start
            s.firstAdmitted = .max
            return (start, wasFlowing)
        }
    }

    /// A live stream's first viewer came: every frame passes until the last one goes (`releaseForStreaming`).
    package func holdForStreaming() {
        state.withLock { $0.streams += 1 }
    }

    package func releaseForStreaming() {
        state.withLock { $0.streams = max(0, $0.streams - 1) }
    }

    /// Pre-record: the encoder runs all the time, every frame passes.
    package func openPermanently() {
        state.withLock { s in
            s.open = true
            s.startAt = 0
            s.firstAdmitted = 0
            s.permanent = true
        }
    }

    package func close() {
        state.withLock { s in
            guard !s.permanent else { return }
            s.open = false
            s.startAt = .max
            s.firstAdmitted = .max
        }
    }

    /// Called for each raw frame at the encoder input; returns whether it may pass. A recording's first frame is
    /// noted here whether or not a live stream already lets every frame through.
    package func admit(runningTime rt: UInt64) -> Bool {
        state.withLock { s in
            if rt != .max { s.lastSeen = rt }
            guard rt != .max else { return false }
            if s.open, s.firstAdmitted == .max, rt + frameInterval / 2 >= s.startAt { s.firstAdmitted = rt }
            return s.streams > 0 || (s.open && s.firstAdmitted != .max)
        }
    }

    /// Whether frames (and audio) may reach the encoders now.
    package var isOpen: Bool { state.withLock { $0.open || $0.streams > 0 } }

    /// The planned start time of the open recording.
    var startAt: UInt64? {
        let t = state.withLock { $0.startAt }
        return t == .max ? nil : t
    }

    /// Running time of the first frame admitted since opening, if any yet.
    package var firstRunningTime: UInt64? {
        let t = state.withLock { $0.firstAdmitted }
        return t == .max ? nil : t
    }
}
