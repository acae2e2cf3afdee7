import ApplianceBase
import GStreamerKit
import Synchronization

/// Moves the input-selector from one source pad to another on a frame boundary, instead of "now".
///
/// Sources reach the selector later than their timestamps, and by different amounts (measured: a 15 fps camera
/// rate-converted to 30 fps about 150 ms, the black filler about 0). Selecting "now" leaves a hole in the output
/// timeline when the new source has less delay (slots filled by repeating the last frame) and an overlap when it has
/// more (frames dropped because their slot is taken). A handover fixes a boundary time `B` on the new source's first
/// frame instead, half a frame interval before an output slot that nothing has filled yet:
/// - the old source keeps the output until its first frame at or after `B`; that frame's probe moves the selector,
///   from the old source's streaming thread, and the selector drops the frame (its pad is no longer active);
/// - the new source's frames before `B` are dropped, and a blocking probe holds the first one from `B` until the
///   selector has moved.
/// Every output slot is filled exactly once, whichever source is later. Nothing here waits: probes only decide.
final class Handover: Sendable {
    private struct State {
        var boundary: UInt64?
        /// Running time of the old source's last frame let through before the boundary was fixed.
        var lastPassed: UInt64?
        var switched = false
        var cancelled = false
        /// The new source's probe is holding a frame (its pad is blocked).
        var holding = false
        var toProbe: Probe?
        var fromProbe: Probe?
        var toGone = false
        var fromGone = false
    }

    private let selector: Element
    package let from: Pad
    package let to: Pad
    private let flow: VideoFlowMonitor
    private let state = Mutex(State())
    /// Fires with `B` once the selector has moved.
    let completed = OneShot<UInt64>()
    /// Fires when the new source's first frame reaches the encoder input.
    let arrival = OneShot<ContinuousClock.Instant>()

    package init(selector: Element, from: Pad, to: Pad, flow: VideoFlowMonitor) {
        self.selector = selector
        self.from = from
        self.to = to
        self.flow = flow
    }

    /// Installs the probes. The new source's first frame from now on fixes the boundary.
    /// The old source's probe goes first, so that every frame it lets through before the boundary is known
    /// (`lastPassed`) when the new source's first frame fixes the boundary.
    package func begin() {
        let fromProbe = from.addProbe(.buffer) { [self] info in
            guard let buffer = info.buffer else { return .ok }
            return oldSourceFrame(at: info.runningTime(buffer.pts))
        }
        state.withLock { if !$0.fromGone { $0.fromProbe = fromProbe } }
        let toProbe = to.addProbe([.buffer, .block]) { [self] info in
            guard let buffer = info.buffer else { return .ok }
            return newSourceFrame(at: info.runningTime(buffer.pts))
        }
        state.withLock { if !$0.toGone { $0.toProbe = toProbe } }
    }

    private func newSourceFrame(at time: UInt64) -> ProbeReturn {
        state.withLock { s in
            // Whoever sets `toGone` removes the probe; a callback racing with that removal lets the frame pass.
            if s.toGone { return .pass }
            if s.cancelled {
                s.toGone = true
                s.toProbe = nil
                return .remove
            }
            guard time != .max else { return .drop }
            if s.boundary == nil, s.switched {
                // Moved by force before this source delivered anything: nothing left to decide.
                s.toGone = true
                s.toProbe = nil
                return .remove
            }
            if s.boundary == nil {
                let boundary = flow.handoverBoundary(firstFrame: time, oldSourcePassed: s.lastPassed)
                s.boundary = boundary
                flow.watchEncoderArrival(from: boundary, arrival)
            }
            if time < s.boundary! { return .drop }
            if s.switched {
                s.toGone = true
                s.toProbe = nil
                s.holding = false
                return .remove
            }
            s.holding = true
            return .ok
        }
    }

    private func oldSourceFrame(at time: UInt64) -> ProbeReturn {
        let decision = state.withLock { s -> (verdict: ProbeReturn, release: Probe?, boundary: UInt64?) in
            if s.fromGone { return (.ok, nil, nil) }  // being removed by `force` or `cancel`
            if s.switched || s.cancelled {
                s.fromGone = true
                s.fromProbe = nil
                return (.remove, nil, nil)
            }
            guard let boundary = s.boundary, time != .max, time >= boundary else {
                if s.boundary == nil, time != .max { s.lastPassed = time }
                return (.ok, nil, nil)
            }
            s.switched = true
            s.fromGone = true
            s.fromProbe = nil
            return (.remove, takeHeldProbe(&s), boundary)
        }
        if let boundary = decision.boundary { move(release: decision.release, boundary: boundary) }
        return decision.verdict
    }

    /// The old source stopped short of the boundary (it failed, or it is far later than the new one): move now.
    /// Frames of the new source before the boundary are still dropped.
    package func force() {
        let decision = state.withLock { s -> (release: Probe?, from: Probe?, boundary: UInt64?)? in
            guard !s.switched, !s.cancelled else { return nil }
            s.switched = true
            let fromProbe = s.fromProbe
            s.fromProbe = nil
            s.fromGone = true
            return (takeHeldProbe(&s), fromProbe, s.boundary)
        }
        guard let decision else { return }
        decision.from?.remove()
        move(release: decision.release, boundary: decision.boundary ?? 0)
    }

    /// The new source never delivered: remove the probes and leave the selector where it is.
    package func cancel() {
        let probes = state.withLock { s -> [Probe] in
            guard !s.switched else { return [] }
            s.cancelled = true
            let found = [s.toProbe, s.fromProbe].compactMap { $0 }
            s.toProbe = nil
            s.fromProbe = nil
            s.toGone = true
            s.fromGone = true
            return found
        }
        for probe in probes { probe.remove() }
    }

    /// The new source's blocking probe, when it holds a frame: whoever moves the selector removes it.
    private func takeHeldProbe(_ s: inout State) -> Probe? {
        guard s.holding, let probe = s.toProbe else { return nil }
        s.toProbe = nil
        s.toGone = true
        s.holding = false
        return probe
    }

    private func move(release: Probe?, boundary: UInt64) {
        selector.set("active-pad", pad: to)
        release?.remove()
        completed.fire(boundary)
    }
}
