import ApplianceBase

/// Decides from two counters whether the daemon is alive: output frames leaving the camera selector (the picture
/// really flows) and turns of the GStreamer bus thread (errors and state changes are being read). Fed a sample
/// at a time, with the sample's time, so it is judged the same way in a test as in the daemon.
package struct FlowJudge: Sendable {
    package enum Verdict: Sendable, Equatable {
        /// Both counters moved since the previous sample.
        case alive
        /// Something has not moved since the previous sample, for less than `stallAfter` yet.
        case quiet
        /// Frames or the bus thread have not moved for `stallAfter` or longer.
        case stalled(reason: String, seconds: Double)
    }

    /// How long frames or bus turns may stand still before it is a stall.
    package let stallAfter: Duration
    private var frames: UInt64?
    private var beats: UInt64?
    private var framesMoved: ContinuousClock.Instant?
    private var beatsMoved: ContinuousClock.Instant?

    package init(stallAfter: Duration) { self.stallAfter = stallAfter }

    package mutating func sample(frames newFrames: UInt64, busTurns newBeats: UInt64, at now: ContinuousClock.Instant)
        -> Verdict
    {
        let framesAdvanced = frames.map { newFrames > $0 } ?? false
        let beatsAdvanced = beats.map { newBeats > $0 } ?? false
        if framesAdvanced || framesMoved == nil { framesMoved = now }
        if beatsAdvanced || beatsMoved == nil { beatsMoved = now }
        (frames, beats) = (newFrames, newBeats)
        let frameAge = now - framesMoved!
        let beatAge = now - beatsMoved!
        if frameAge >= stallAfter {
            return .stalled(reason: "no output frame for \(Self.seconds(frameAge)) s", seconds: Self.seconds(frameAge))
        }
        if beatAge >= stallAfter {
            return .stalled(
                reason: "the GStreamer bus thread has not turned for \(Self.seconds(beatAge)) s",
                seconds: Self.seconds(beatAge))
        }
        return framesAdvanced && beatsAdvanced ? .alive : .quiet
    }

    /// Several channels' verdicts as one: the first stall (named by its channel, nil for the first channel), else
    /// alive when every channel is, else quiet.
    package static func combined(_ verdicts: [(channel: String?, verdict: Verdict)]) -> Verdict {
        for (channel, verdict) in verdicts {
            if case .stalled(let reason, let seconds) = verdict {
                return .stalled(reason: channel.map { "channel \($0): " + reason } ?? reason, seconds: seconds)
            }
        }
        return verdicts.allSatisfy { $0.verdict == .alive } ? .alive : .quiet
    }

    package static func seconds(_ duration: Duration) -> Double {
        ((Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18) * 10).rounded() / 10
    }
}
