import ApplianceBase
import GStreamerKit

/// The frames the encoder's queue hands the encoder, watched on the queue's streaming thread, so that an encoder that
/// fails loses none of them: the frame it failed on and the next one (the guard on its sink kept the error; the
/// hold on the queue (`EncoderChain.holdInput`) catches only the frames after those), kept aside and given first
/// to the encoder that replaces it, in order, before the frames held in the queue.
final class EncoderInput: Sendable {
    package struct Frame: @unchecked Sendable {
        package let buffer: BufferRef
        package let pts: UInt64
    }

    private struct State {
        var last: Frame?
        var kept: [Frame] = []
        var refeed: [Frame] = []
        var holding = false
        /// The guard's error has been answered (the frame it failed on is kept).
        var failureKept = false
    }

    private let state = Locked(State())
    /// The current encoder's guarded sink (its `guardedFlow` says it failed).
    let guardPad = Locked<Pad?>(nil)
    private let frameInterval: UInt64
    /// Installs the hold on the queue (from the streaming thread, as the failure is seen).
    package let hold = Locked<(@Sendable () -> Void)?>(nil)

    package init(frameInterval: UInt64) { self.frameInterval = frameInterval }

    /// For each frame at the queue's src, before the encoder has it; false: keep it out of the encoder (it went
    /// aside for the replacement). Pushes the frames kept aside first, once a replacement is in (`replaced`).
    package func pass(_ info: ProbeInfo, _ buffer: BufferView) -> Bool {
        let refeed = state.withLock { s in
            defer { s.refeed = [] }
            return s.refeed
        }
        for frame in refeed {
            info.pushCopies(of: frame.buffer, start: frame.pts, step: frameInterval, count: 1)
        }
        let failed = guardPad.withLock { $0?.guardedFlow } != nil
        let current = Frame(buffer: buffer.retain(), pts: buffer.pts)
        let keepOut = state.withLock { s -> Bool in
            guard failed, !s.failureKept else {
                s.last = current
                return false
            }
            // The encoder failed on the frame pushed last: it and this one wait for the replacement, whoever placed
            // the hold (the failover, on the bus error, can place it before this frame comes: it once had, and the
            // failed frame, not kept because the hold was already there, was lost).
            s.failureKept = true
            s.kept = (s.last.map { [$0] } ?? []) + [current]
            s.holding = true
            return true
        }
        if keepOut { hold.withLock { $0 }?() }
        return !keepOut
    }

    /// The hold was placed from outside (a stall, a bus error): what the guard saw, if anything, is no longer news.
    func noteHeld() { state.withLock { $0.holding = true } }

    /// A new encoder is in: the frames kept aside go into it first, with the next frame.
    package func replaced(guard pad: Pad?) {
        guardPad.withLock { $0 = pad }
        state.withLock { s in
            (s.refeed, s.kept, s.last, s.holding, s.failureKept) = (s.kept, [], nil, false, false)
        }
    }
}
