import ApplianceBase
import Foundation
import GStreamerKit
import Synchronization

/// One recording in flight: its bin behind the encoded tees, the cut probes that start it on a keyframe and end
/// it at the stop time, and its timing. Probe callbacks only update `state` and return.
package final class RecordingSession: Sendable {
    package let id: String
    package let partialPath: String
    package let createdAt: Date
    package let graph: CaptureGraph
    let recordingBin: RecordingBin
    /// The cut rules' state, shared by the two probes (and the app thread's stop and cut requests).
    package let state: Locked<RecordingCut>
    /// Fired when the filesink receives EOS: the MP4 index is written.
    package let finalised = OneShot<Bool>()
    private let videoPad: Pad
    private let audioPad: Pad?
    private let cutProbes: [Probe]
    private let missingBaseline: UInt64
    /// A segment that continues a recording takes its own pads from the encoded tees, even with pre-record (the
    /// window's pad feeds the segment before it).
    private let onTees: Bool
    /// Fed by a pre-record window (the current one, or a failed encoder's): its video ends where the window's does.
    let fromWindow: Bool
    /// Planned running time of the first frame (pre-record: the earliest time the window may give).
    let startAt: UInt64
    /// How far ahead of the request the clip starts: long enough that no stream has passed that time yet.
    static let startLead: UInt64 = 100_000_000
    /// A fresh start (no pre-record) plans its first frame this far after the encoder gate opens (measured at the
    /// opening, after the bin is built and linked, so building it never eats into the lead). The gate drops raw
    /// frames and raw audio until it opens; from then on both flow. The planned time must only be later than what
    /// is already past the gate: a live video frame reaches it a few ms after its timestamp, raw audio one buffer
    /// (≤ 21 ms) after, and the AAC frame at the start needs the 1024 samples before it. 100 ms from the request
    /// made key press → first frame in the file ~160 ms here; 50 ms from the opening leaves margin under 200 ms.
    static let freshStartLead: UInt64 = 50_000_000

    /// Builds the bin, links it behind the encoded streams and lets data in. Fast; no waiting.
    /// `continuing`: the cut time of a loop recording's next segment. The encoder keeps running; the segment
    /// starts on the first keyframe at or after that time, and its audio with the first frame starting there.
    /// `retired`: pre-record, with the frames the failed encoder gave (`RecordingOutputs.attachRetired`, passed in).
    /// `fromWindowStart`: pre-record, from the window's first keyframe whatever its age (after a failover the new
    /// window begins with the frame after the failed encoder's last).
    package init(
        id: String, partialPath: String, graph: CaptureGraph, continuing cut: UInt64? = nil,
        retired: (video: Pad, audio: Pad?)? = nil, fromWindowStart: Bool = false
    ) throws {
        self.id = id
        self.partialPath = partialPath
        self.graph = graph
        createdAt = Date()
        state = Locked(RecordingCut(frameInterval: graph.flow.frameInterval))
        let state = self.state
        recordingBin = try RecordingBin(
            name: RecordingBin.name(id: id), path: partialPath,
            hasAudio: graph.audioTee != nil, config: graph.config, counters: graph.fragmentCounters
        ) {
            state.withLock { .init(video: $0.timing.videoFirst, audio: $0.timing.audioFirst) }
        }
        let finalised = self.finalised
        recordingBin.sinkPad.addProbe(.eventDownstream) { info in
            if info.event == .eos { finalised.fire(true) }
            return .ok
        }
        try graph.pipeline.add(recordingBin.bin)

        let outputs = graph.outputs
        onTees = cut != nil
        (videoPad, audioPad) = try retired ?? (cut == nil ? outputs.attach() : outputs.attachToTees())
        missingBaseline = graph.flow.missingAtEncoder
        let now = graph.runningTimeNow
        let window = cut == nil ? outputs.window : nil
        fromWindow = window != nil
        // Fed by the current pre-record window: at its stop the buffers after the end stay in the window, held
        // (see the cut probes), instead of being dropped until the bin is detached. A recording started while this
        // one is finalised then continues where it ended (the stop asks the encoder for a keyframe there).
        let endsBeforeTheStop = window != nil && retired == nil
        state.withLock { s in
            s.endsBeforeTheStop = endsBeforeTheStop
            s.timing.requestedClock = now
            if let window { s.videoFrom = now > window && !fromWindowStart ? now - window : 0 }
            // The frame due at the cut may carry a timestamp a nanosecond short (30 fps does not divide a second).
            if let cut { (s.videoFrom, s.audioFrom) = (cut - graph.flow.frameInterval / 2, cut) }
        }
        var probes = [Self.addVideoCutProbe(on: videoPad, state: state, graph: graph, releasesAudio: window != nil)]
        if let audioPad { probes.append(Self.addAudioCutProbe(on: audioPad, state: state, outputs: outputs)) }
        cutProbes = probes
        do {
            try videoPad.link(recordingBin.videoPad)
            if let audioPad, let binAudio = recordingBin.audioPad { try audioPad.link(binAudio) }
            guard recordingBin.bin.syncStateWithParent() else {
                throw GStreamerError(
                    element: recordingBin.bin.name,
                    message: "cannot start the recording bin (is \(partialPath) writable?)")
            }
        } catch {
            // Leave the graph as it was: no probes, no links, no bin, no request pads.
            Self.detach(
                bin: recordingBin, video: videoPad, audio: audioPad, probes: probes, graph: graph, onTees: onTees,
                last: cut == nil)
            throw error
        }
        startAt = Self.begin(cut: cut, fromWindow: window != nil, retired: retired != nil, state: state, graph: graph)
    }

    /// Where the recording's first frame is, and what lets it come: at a loop cut (a keyframe asked for there), from
    /// the pre-record window (released now, or the retired one after a failover), or at a fresh start of the encoder.
    private static func begin(
        cut: UInt64?, fromWindow: Bool, retired: Bool, state: Locked<RecordingCut>, graph: CaptureGraph
    ) -> UInt64 {
        if let cut {
            graph.requestKeyframe(at: cut - graph.flow.frameInterval / 2)
            return cut
        }
        if fromWindow {
            let from = state.withLock { $0.videoFrom ?? 0 }
            if retired { graph.outputs.releaseRetired() } else { graph.outputs.release(.video) }
            return from
        }
        graph.flow.resetEncoderInput()
        let (planned, wasFlowing) = graph.gate.open(earliest: graph.runningTimeNow + freshStartLead)
        // A closed encoder starts on a keyframe; one already encoding for live viewers is asked for one at the
        // planned start, in band, as at a segment cut.
        if wasFlowing {
            graph.requestKeyframe(at: planned - graph.flow.frameInterval / 2)
        } else {
            graph.requestKeyframe()
        }
        // A camera's stream stored as sent starts on the camera's next keyframe, not at the planned time: its sound
        // then starts with that frame (the video's start sets it).
        if !graph.storesAsSent { state.withLock { $0.audioFrom = planned } }
        return planned
    }

    /// Buffers go into the bin from the probe itself, so the pusher (the tee) always sees success: a bin that
    /// cannot write its file (ENOSPC, storage gone) would otherwise return an error up through the tees and stop the
    /// cameras' streaming threads (measured: a full disk ended the camera and the filler). Such a bin is cut off at
    /// its first refusal; the recorder hears of it from the bus and ends the file.
    private static func deliver(_ info: ProbeInfo, state: Locked<RecordingCut>) -> ProbeReturn {
        if !info.chainToPeer() { state.withLock { $0.refuse() } }
        return .handled
    }

    /// A buffer at or past the end (dropped by the caller): the bin's end of stream; fed by the window, the window
    /// is held from the next buffer on (a frame that came sooner than the grid foretold its last).
    private static func endHere(_ info: ProbeInfo, state: Locked<RecordingCut>, hold: () -> Bool) {
        info.sendToPeer(.eos())
        if state.withLock({ $0.endsBeforeTheStop }) { _ = hold() }
    }

    /// A stream's last buffer before the stop: into the file, then its end of stream, then the window held.
    private static func deliverLast(_ info: ProbeInfo, state: Locked<RecordingCut>, hold: () -> Bool) -> ProbeReturn {
        let delivered = deliver(info, state: state)
        info.sendToPeer(.eos())
        _ = hold()
        return delivered
    }

    /// The cut probes also see events: once a stream has ended, its events are dropped too. A tag event that
    /// reached the bin after its EOS returned EOS, the next buffer's sticky-event push failed before any probe ran,
    /// and that EOS travelled up through the tees and ended the camera ("its stream ended" after about one recording
    /// in five cut at max_duration_s, where the file waits up to a tick before it is detached).
    ///
    /// Fed by the current pre-record window (`RecordingCut.endsBeforeTheStop`): each stream ends on its last buffer
    /// before the stop
    /// (`.last`), and the window is held again at once, so the buffer after it and those behind it stay in the window
    /// for the next recording (the detach's own hold takes over from this one). Holds are blocking probes, which
    /// GStreamer runs in a pass before this one: the buffer after the stop cannot be held from here, only the next.
    private static func addVideoCutProbe(
        on pad: Pad, state: Locked<RecordingCut>, graph: CaptureGraph,
        releasesAudio: Bool
    ) -> Probe {
        let (pipeline, gate, outputs) = (graph.pipeline, graph.gate, graph.outputs)
        return pad.addProbe([.buffer, .eventDownstream]) { info in
            guard let buffer = info.buffer else { return state.withLock { $0.video == .ended } ? .drop : .ok }
            let time = info.runningTime(buffer.pts)
            let clock = pipeline.runningTimeNow?.nanoseconds
            let verdict = state.withLock {
                $0.video(at: time, keyframe: buffer.isKeyframe, clock: clock, gateStart: gate.firstRunningTime)
            }
            // Pre-record: the held audio waits for the first frame's time (now its start).
            if verdict == .start, releasesAudio { outputs.release(.audio) }
            if verdict == .end { endHere(info, state: state, hold: { outputs.hold(.video) }) }
            if verdict == .last { return deliverLast(info, state: state, hold: { outputs.hold(.video) }) }
            return verdict.isKept ? deliver(info, state: state) : .drop
        }
    }

    private static func addAudioCutProbe(on pad: Pad, state: Locked<RecordingCut>, outputs: RecordingOutputs) -> Probe {
        pad.addProbe([.buffer, .eventDownstream]) { info in
            guard let buffer = info.buffer else { return state.withLock { $0.audio == .ended } ? .drop : .ok }
            let time = info.runningTime(buffer.pts)
            let verdict = state.withLock { $0.audio(at: time, duration: buffer.duration) }
            if verdict == .end { endHere(info, state: state, hold: { outputs.hold(.audio) }) }
            if verdict == .last { return deliverLast(info, state: state, hold: { outputs.hold(.audio) }) }
            return verdict.isKept ? deliver(info, state: state) : .drop
        }
    }

    /// How many buffers the file has taken (video frames and AAC frames): a stop waits while this still grows.
    var buffersTaken: UInt64 { state.withLock { $0.timing.videoFrames + $0.timing.audioBuffers } }

    /// Whether the bin refused data (its file could not be written).
    package var refused: Bool { state.withLock { $0.refused } }

    /// When the file's first frame was taken, by the wall clock: with pre-record up to the window before the
    /// request (`createdAt`). Nil until that frame is in the file.
    package var firstFrameDate: Date? {
        let (first, requested) = state.withLock { ($0.timing.videoFirst, $0.timing.requestedClock) }
        guard let first, let requested, first != .max else { return nil }
        return createdAt.addingTimeInterval((Double(first) - Double(requested)) / 1e9)
    }

    package var timing: RecordingTiming {
        let missing = graph.flow.missingAtEncoder
        return state.withLock { s in
            var t = s.timing
            t.droppedFrames = missing - missingBaseline
            return t
        }
    }

    /// Ends the clip at running time `at` (or earlier, if an earlier end was asked for): the probes pass what is
    /// older, then send EOS into the bin.
    package func requestStop(at runningTime: UInt64) {
        state.withLock { $0.stopAt = min($0.stopAt, runningTime) }
    }

    /// Ends the clip at the first frame boundary at or after `runningTime` (on the grid of its first frame): the
    /// frame showing at that time is the last one in, and audio stops at the same boundary.
    /// With pre-record, the encoder is asked for a keyframe there: the window's held head is then where a next
    /// recording can begin.
    package func requestStop(onFrameBoundaryAfter runningTime: UInt64) {
        let boundary = state.withLock { $0.frameBoundary(atOrAfter: runningTime) }
        requestStop(at: boundary)
        if state.withLock({ $0.endsBeforeTheStop }) {
            graph.requestKeyframe(at: boundary - min(boundary, graph.flow.frameInterval / 2))
        }
    }

    /// Loop recording: ends this segment where the next one (already attached) begins: before the first keyframe
    /// due at or after `runningTime` (a frame-grid time) and before the first audio frame starting there.
    package func cut(at runningTime: UInt64) {
        state.withLock { $0.cutAt = min($0.cutAt, runningTime) }
    }

    /// A continuing segment that has not begun (its cut keyframe has not come): it never will. False once begun.
    func cancelIfNotStarted() -> Bool {
        state.withLock { s in
            guard s.video == .waiting else { return false }
            (s.video, s.audio) = (.ended, .ended)
            return true
        }
    }

    /// Takes back a cut that has not happened yet (the segment after it was cancelled).
    func uncut() {
        state.withLock { $0.cutAt = .max }
    }

    /// For streams that stopped flowing: ends them from the app thread. An idle probe guarantees no buffer is
    /// on its way through the pad while the EOS goes in.
    func forceEndOfStreams() {
        for (pad, isVideo) in [(videoPad, true), (audioPad, false)] {
            guard let pad else { continue }
            if !isVideo, !onTees { graph.outputs.release(.audio) }  // pre-record: audio may still be held
            pad.addProbe(.idle) { [state] info in
                if state.withLock({ $0.endStream(video: isVideo) }) { info.sendToPeer(.eos()) }
                return .remove
            }
        }
    }

    /// Detaches and disposes of the bin. Blocking GStreamer calls: run off the cooperative pool.
    /// `last`: no segment follows, so the encoders may stop (and the pre-record window holds again).
    package func teardown(last: Bool = true) {
        Self.detach(
            bin: recordingBin, video: videoPad, audio: audioPad, probes: cutProbes, graph: graph, onTees: onTees,
            last: last)
    }

    private static func detach(
        bin recordingBin: RecordingBin, video videoPad: Pad, audio audioPad: Pad?, probes: [Probe],
        graph: CaptureGraph, onTees: Bool, last: Bool
    ) {
        let outputs = graph.outputs
        if !onTees { outputs.quiesce() }
        if last { graph.gate.close() }
        // Unlink before the cut probes go: a buffer let through between the two would meet the bin's EOS, and that
        // flow return would travel up through the tees to the camera (see the cut probes).
        if let peer = videoPad.peer { videoPad.unlink(peer) }
        if let audioPad, let peer = audioPad.peer { audioPad.unlink(peer) }
        for probe in probes { probe.remove() }
        if onTees {
            outputs.releaseTeePads(video: videoPad, audio: audioPad)
        } else {
            outputs.detach(video: videoPad, audio: audioPad)
        }
        recordingBin.bin.setLockedState(true)
        _ = try? recordingBin.bin.setState(.null)
        graph.pipeline.remove(recordingBin.bin)
    }
}
