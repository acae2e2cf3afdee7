import Foundation
import GStreamerKit
import Synchronization

/// One recording in flight: its bin behind the encoded tees, the cut probes that start it on a keyframe and end
/// it at the stop time, and its timing. Probe callbacks only update `state` and return.
final class RecordingSession: @unchecked Sendable {
    enum Phase: Sendable { case waiting, recording, ended }

    struct State {
        var video = Phase.waiting
        var audio = Phase.waiting
        var stopAt: UInt64 = .max
        var timing: RecordingTiming
    }

    let id: String
    let partialPath: String
    let createdAt: Date
    let graph: CaptureGraph
    let recordingBin: RecordingBin
    let state: Locked<State>
    /// Fired when the filesink receives EOS: the MP4 index is written.
    let finalised = OneShot<Bool>()
    private let videoTeePad: Pad
    private let audioTeePad: Pad?
    private let missingBaseline: UInt64
    /// Planned running time of the first frame.
    private(set) var startAt: UInt64 = 0
    /// How far ahead of the request the clip starts: long enough that no stream has passed that time yet.
    static let startLead: UInt64 = 100_000_000

    /// Builds the bin, links it behind the tees and opens the encoder gate. Fast; no waiting.
    init(id: String, partialPath: String, graph: CaptureGraph) throws {
        self.id = id
        self.partialPath = partialPath
        self.graph = graph
        createdAt = Date()
        state = Locked(State(timing: RecordingTiming(frameInterval: graph.flow.frameInterval)))
        recordingBin = try RecordingBin(name: "rec-\(id.prefix(8))", path: partialPath,
                                        hasAudio: graph.audioTee != nil, recording: graph.config.recording)
        let finalised = self.finalised
        recordingBin.sinkPad.addProbe(.eventDownstream) { info in
            if info.event == .eos { finalised.fire(true) }
            return .ok
        }
        try graph.pipeline.add(recordingBin.bin)

        videoTeePad = try graph.videoTee.requestPad("src_%u")
        audioTeePad = try graph.audioTee?.requestPad("src_%u")
        missingBaseline = graph.flow.missingAtEncoder
        let gate = graph.gate
        let pipeline = graph.pipeline
        state.withLock { $0.timing.requestedClock = pipeline.runningTimeNow?.nanoseconds }
        videoTeePad.addProbe(.buffer) { [state] info in
            guard let buffer = info.buffer else { return .ok }
            let rt = info.runningTime(buffer.pts)
            let now = pipeline.runningTimeNow?.nanoseconds
            let (verdict, end) = state.withLock { s -> (ProbeReturn, Bool) in
                switch s.video {
                case .waiting:
                    guard let threshold = gate.firstRunningTime, buffer.isKeyframe, rt != .max, rt >= threshold else { return (.drop, false) }
                    s.video = .recording
                    s.timing.firstFrameClock = now
                    s.timing.lastFrameClock = now
                    s.timing.videoFirst = rt
                    s.timing.videoLast = rt
                    s.timing.videoFrames = 1
                    return (.ok, false)
                case .recording:
                    if rt != .max, rt > s.stopAt {
                        s.video = .ended
                        return (.drop, true)
                    }
                    s.timing.videoFrames += 1
                    s.timing.videoLast = rt
                    s.timing.lastFrameClock = now
                    return (.ok, false)
                case .ended:
                    return (.drop, false)
                }
            }
            if end { info.sendToPeer(.eos()) }
            return verdict
        }
        audioTeePad?.addProbe(.buffer) { [state] info in
            guard let buffer = info.buffer else { return .ok }
            let rt = info.runningTime(buffer.pts)
            let end = rt == .max ? rt : rt + (buffer.duration == .max ? 0 : buffer.duration)
            let (verdict, sendEOS) = state.withLock { s -> (ProbeReturn, Bool) in
                switch s.audio {
                case .waiting:
                    // Audio that ends before the planned start of the clip is not part of it.
                    guard let threshold = gate.startAt, rt != .max, end > threshold else { return (.drop, false) }
                    s.audio = .recording
                    s.timing.audioFirst = rt
                    s.timing.audioEnd = end
                    s.timing.audioBuffers = 1
                    return (.ok, false)
                case .recording:
                    if rt >= s.stopAt {
                        s.audio = .ended
                        return (.drop, true)
                    }
                    s.timing.audioBuffers += 1
                    s.timing.audioEnd = end
                    return (.ok, false)
                case .ended:
                    return (.drop, false)
                }
            }
            if sendEOS { info.sendToPeer(.eos()) }
            return verdict
        }
        try videoTeePad.link(recordingBin.videoPad)
        if let audioTeePad, let audioPad = recordingBin.audioPad { try audioTeePad.link(audioPad) }
        guard recordingBin.bin.syncStateWithParent() else {
            throw GStreamerError(element: recordingBin.bin.name, message: "cannot start the recording bin (is \(partialPath) writable?)")
        }
        graph.flow.resetEncoderInput()
        graph.requestKeyframe()
        startAt = graph.gate.open(earliest: graph.runningTimeNow + Self.startLead)
    }

    var timing: RecordingTiming {
        let missing = graph.flow.missingAtEncoder
        return state.withLock { s in
            var t = s.timing
            t.droppedFrames = missing - missingBaseline
            return t
        }
    }

    /// Ends the clip at running time `at`: the probes pass what is older, then send EOS into the bin.
    func requestStop(at runningTime: UInt64) {
        state.withLock { $0.stopAt = runningTime }
    }

    /// For streams that stopped flowing: ends them from the app thread. An idle probe guarantees no buffer is
    /// on its way through the tee pad while the EOS goes in.
    func forceEndOfStreams() {
        for (pad, isVideo) in [(videoTeePad, true), (audioTeePad, false)] {
            guard let pad else { continue }
            pad.addProbe(.idle) { [state] info in
                let wasEnded = state.withLock { s -> Bool in
                    let ended = (isVideo ? s.video : s.audio) == .ended
                    if isVideo { s.video = .ended } else { s.audio = .ended }
                    return ended
                }
                if !wasEnded { info.sendToPeer(.eos()) }
                return .remove
            }
        }
    }

    /// Detaches and disposes of the bin. Blocking GStreamer calls: run off the cooperative pool.
    func teardown() {
        graph.gate.close()
        if let peer = videoTeePad.peer { videoTeePad.unlink(peer) }
        graph.videoTee.releaseRequestPad(videoTeePad)
        if let audioTeePad, let audioTee = graph.audioTee {
            if let peer = audioTeePad.peer { audioTeePad.unlink(peer) }
            audioTee.releaseRequestPad(audioTeePad)
        }
        recordingBin.bin.setLockedState(true)
        _ = try? recordingBin.bin.setState(.null)
        graph.pipeline.remove(recordingBin.bin)
    }
}
