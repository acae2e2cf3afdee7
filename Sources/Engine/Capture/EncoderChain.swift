import ApplianceBase
import Foundation
import GStreamerKit
import Settings

/// The part of the live graph in front of h264parse that can be rebuilt while the graph runs: the raw tee's pad !
/// queue (leaky, a second of frames) [! clockoverlay] ! the encoder fragment. h264parse, the AVC capsfilter and the
/// video tee stay, so
/// every consumer of the encoded stream (recordings, pre-record, RTSP, WebRTC) stays linked across a replacement.
///
/// The encoder's sink ghost pad carries a flow guard (`Pad.guardFlow`): an encoder that fails returns an error to
/// the queue, and the queue would refuse everything after with that error, up through the raw tee to the camera — one
/// failed encoder would stop the whole graph. Behind the guard the failure stays in this branch and is read here.
package final class EncoderChain: Sendable {
    /// One build of the branch.
    struct Parts: @unchecked Sendable {
        package let generation: Int
        package let encoder: String
        let teePad: Pad
        package let queue: Element
        package let overlay: Element?
        package let bin: Bin
        package var elements: [Element] { [queue] + (overlay.map { [$0] } ?? []) + [bin] }
    }

    /// Frames let into the encoder and access units out of the parser: an encoder that takes frames and gives
    /// nothing back for a while has stopped (`EncoderOutputJudge`).
    package struct Counters: Sendable, Equatable {
        package var admitted: UInt64 = 0
        package var encoded: UInt64 = 0

        package init(admitted: UInt64 = 0, encoded: UInt64 = 0) {
            self.admitted = admitted
            self.encoded = encoded
        }
    }

    private let parts: Locked<Parts>
    private let failure = Locked<String?>(nil)
    /// The hold on the queue's src while an encoder is replaced, and whether it has caught a frame.
    private let inputHold = Locked<Probe?>(nil)
    private let inputCaught = Locked(false)
    /// Run with the next encoder's first access unit (`replace`).
    private let firstOutput = Locked<(@Sendable () -> Void)?>(nil)
    package let counters = Locked(Counters())
    private let config: ApplianceConfig
    private let fragments: FragmentLibrary
    private let pipeline: Pipeline
    private let rawTee: Element
    private let parser: Element
    private let flow: VideoFlowMonitor
    private let gate: EncoderGate
    private let keyframeAt: Locked<UInt64?>
    private let input: EncoderInput

    package init(
        config: ApplianceConfig, fragments: FragmentLibrary, pipeline: Pipeline, rawTee: Element, parser: Element,
        flow: VideoFlowMonitor, gate: EncoderGate, keyframeAt: Locked<UInt64?>
    ) throws {
        (self.config, self.fragments, self.pipeline, self.rawTee, self.parser) = (
            config, fragments, pipeline, rawTee, parser
        )
        (self.flow, self.gate, self.keyframeAt) = (flow, gate, keyframeAt)
        let input = EncoderInput(frameInterval: flow.frameInterval)
        self.input = input
        let (counters, firstOutput) = (counters, firstOutput)
        parser.staticPad("src")?.addProbe(.buffer) { _ in
            // The action first: a failover that sees the count move goes on at once (a recording then attaches to
            // the window that action links; counted first, it once found no window and began a GOP late).
            firstOutput.withLock { action in
                defer { action = nil }
                return action
            }?()
            counters.withLock { $0.encoded += 1 }
            return .ok
        }
        parts = Locked(
            try Self.build(
                encoder: config.video.encoder, generation: 0, config: config, fragments: fragments,
                pipeline: pipeline, rawTee: rawTee, parser: parser, flow: flow, gate: gate,
                keyframeAt: keyframeAt, counters: counters, input: input))
        input.hold.withLock { $0 = { [weak self] in self?.holdInput() } }
    }

    /// The fragment in use (`x264`, `openh264`…).
    package var encoder: String { parts.withLock { $0.encoder } }

    /// How many times the encoder was replaced.
    package var generation: Int { parts.withLock { $0.generation } }

    /// The name of the encoder's bin now (`video-encoder`, then `video-encoder-1`…): the bus names it in errors.
    package var binName: String { parts.withLock { $0.bin.name } }

    /// A bus error from inside the encoder's bin (`GraphWatcher`): kept until `takeFailure`.
    package func noteError(bin: String, message: String) {
        guard bin == binName else { return }  // an error the replaced encoder posted before it went
        failure.withLock { $0 = $0 ?? message }
    }

    /// Why the encoder has failed, if it has: a bus error from its bin, or a flow return its guard kept.
    package func takeFailure() -> String? {
        let guarded = parts.withLock { $0.bin.staticPad("sink")?.guardedFlow }
        return failure.withLock { noted in
            defer { noted = nil }
            return noted ?? guarded.map { "the encoder returned \"\($0)\"" }
        }
    }

    /// From the moment an encoder is known to have failed nothing more goes into it: the queue's src is held (a
    /// blocking probe), and its frames wait there (a second of them, the oldest let go after that) for the
    /// replacement, which then starts with them. The hold takes only once the queue's thread comes back out of the
    /// failed encoder with its next frame: a thread stuck inside it never does (`replace` then builds a new queue).
    package func holdInput() {
        let queue = parts.withLock { $0.queue }
        guard let pad = queue.staticPad("src") else { return }
        let caught = inputCaught
        // Once, whoever comes first (the streaming thread that saw the guard's error, or the failover).
        let placed = inputHold.withLock { hold -> Bool in
            guard hold == nil else { return false }
            caught.withLock { $0 = false }
            hold = pad.addProbe([.block, .buffer]) { _ in
                caught.withLock { $0 = true }
                return .ok
            }
            return true
        }
        if placed { input.noteHeld() }
    }

    /// Replaces the encoder (and its overlay) with a new build of `encoder`'s fragment, linked between the queue and
    /// the parser. When the queue's input is held (`holdInput`, and a frame was caught there) the queue stays, with
    /// the frames it holds, and the new encoder begins with them: no frame the camera gave after the failure is
    /// lost to the swap. Otherwise the queue is rebuilt too, behind a new pad of the raw tee. The old elements are
    /// unlinked at once and stopped on a thread of their own: a driver that hangs keeps that thread, not the caller.
    /// `onFirstOutput` runs on the streaming thread with the new encoder's first access unit, before the encoded tee
    /// has it (so it must not block: linking a pad is fine). Blocking (state changes): call it off the cooperative
    /// pool.
    package func replace(with encoder: String, onFirstOutput: (@Sendable () -> Void)? = nil) throws {
        let old = parts.withLock { $0 }
        let keepQueue = inputCaught.withLock { $0 } && inputHold.withLock { $0 != nil }
        if let src = old.bin.staticPad("src"), let sink = parser.staticPad("sink") { src.unlink(sink) }
        firstOutput.withLock { $0 = onFirstOutput }
        let doomed: [Element]
        if keepQueue {
            if let src = old.queue.staticPad("src"), let peer = src.peer { src.unlink(peer) }
            doomed = (old.overlay.map { [$0] } ?? []) + [old.bin]
        } else {
            releaseInputHold()
            detachQueue(old)
            doomed = old.elements
        }
        for element in doomed {
            element.setLockedState(true)
            pipeline.remove(element)
        }
        Thread.detachNewThread { for element in doomed { _ = try? element.setState(.null) } }
        let new = try Self.build(
            encoder: encoder, generation: old.generation + 1, config: config, fragments: fragments,
            pipeline: pipeline, rawTee: rawTee, parser: parser, flow: flow, gate: gate,
            keyframeAt: keyframeAt, counters: counters, input: input, running: true, keeping: keepQueue ? old : nil)
        parts.withLock { $0 = new }
        failure.withLock { $0 = nil }
        releaseInputHold()
    }

    private func releaseInputHold() {
        inputHold.withLock { probe in
            probe?.remove()
            probe = nil
        }
    }

    /// Unlinks the old queue from the raw tee once no push into it is in flight, and gives the tee's pad back.
    private func detachQueue(_ old: Parts) {
        // The raw tee's pushes into the leaky queue are short: wait for none to be in flight, then unlink.
        let idle = DispatchSemaphore(value: 0)
        let probe = old.teePad.addProbe(.idle) { _ in
            idle.signal()
            return .ok
        }
        _ = idle.wait(timeout: .now() + 1)
        if let sink = old.queue.staticPad("sink") { old.teePad.unlink(sink) }
        probe.remove()
        rawTee.releaseRequestPad(old.teePad)
    }

    /// How many raw frames the encoder's leaky queue holds: a second of video, so that a pause of the encoder (x264
    /// starting as a recording opens, a busy CPU) drops nothing; at most 32 MiB of I420, at least 5 frames. With 5 at
    /// 10 fps the lab VM lost 2 to 3 frames at a record start and at a camera's failure (missing at the encoder
    /// input, none at the selector).
    static func queueFrames(for video: ApplianceConfig.Video) -> UInt {
        let frameBytes = max(video.width * video.height * 3 / 2, 1)
        return UInt(max(5, min(video.framerate, 32 * 1024 * 1024 / frameBytes)))
    }

    /// Makes and links one build: the raw tee's new pad ! queue [! overlay] ! encoder bin ! the parser's sink.
    /// `running`: the graph plays, so the new elements are brought to its state before the tee's pad is linked last
    /// (a buffer pushed into a pad not yet active returns FLUSHING, and the raw tee hands that to the camera, whose
    /// source then stops). `keeping`: the build before, whose tee pad and queue (held) the new encoder takes over.
    private static func build(
        encoder: String, generation: Int, config: ApplianceConfig, fragments: FragmentLibrary,
        pipeline: Pipeline, rawTee: Element, parser: Element, flow: VideoFlowMonitor,
        gate: EncoderGate, keyframeAt: Locked<UInt64?>, counters: Locked<Counters>, input: EncoderInput,
        running: Bool = false, keeping kept: Parts? = nil
    ) throws -> Parts {
        var video = config.video
        video.encoder = encoder
        let suffix = generation == 0 ? "" : "-\(generation)"
        if let kept {
            let (overlay, bin) = try encoderPart(video: video, suffix: suffix, fragments: fragments)
            let chain = (overlay.map { [$0] } ?? []) + [bin as Element]
            try pipeline.add(chain)
            try Element.link(chain + [parser])
            for element in chain.reversed() where !element.syncStateWithParent() {
                throw GStreamerError(element: element.name, message: "the new encoder could not start")
            }
            try kept.queue.link(chain[0])
            input.replaced(guard: bin.staticPad("sink"))
            return Parts(
                generation: generation, encoder: encoder, teePad: kept.teePad, queue: kept.queue, overlay: overlay,
                bin: bin)
        }
        let queue = try CaptureGraph.leakyQueue("encoder-queue" + suffix, buffers: queueFrames(for: video))
        let (overlay, bin) = try encoderPart(video: video, suffix: suffix, fragments: fragments)
        let chain = [queue] + (overlay.map { [$0] } ?? []) + [bin as Element]
        try pipeline.add(chain)
        try Element.link(chain + [parser])
        addProbes(queue: queue, flow: flow, gate: gate, keyframeAt: keyframeAt, counters: counters, input: input)
        if running {
            for element in chain.reversed() where !element.syncStateWithParent() {
                throw GStreamerError(element: element.name, message: "the new encoder could not start")
            }
        }
        input.replaced(guard: bin.staticPad("sink"))
        let teePad = try rawTee.requestPad("src_%u")
        try teePad.link(queue.staticPad("sink")!)
        return Parts(generation: generation, encoder: encoder, teePad: teePad, queue: queue, overlay: overlay, bin: bin)
    }

    /// The encoder fragment's bin (its sink guarded), and the timestamp overlay in front of it when asked for.
    private static func encoderPart(video: ApplianceConfig.Video, suffix: String, fragments: FragmentLibrary) throws
        -> (overlay: Element?, bin: Bin)
    {
        let bin = try fragments.makeBin(
            "encoders", video.encoder, FragmentLibrary.videoEncoderValues(video), binName: "video-encoder" + suffix)
        bin.staticPad("sink")?.guardFlow()
        // The burned-in date and time sits behind the gate (drawn only on frames that are encoded) and after the
        // encoder queue's probes: the in-band keyframe request below passes through it to the encoder.
        guard video.timestampOverlay else { return (nil, bin) }
        do {
            return (try CaptureGraph.makeTimestampOverlay(video: video, name: "timestamp-overlay" + suffix), bin)
        } catch {
            throw GStreamerError(
                element: "timestamp-overlay",
                message:
                    "[video] timestamp_overlay needs clockoverlay: \(PluginPackages.fix(forMissing: "clockoverlay"))")
        }
    }

    private static func addProbes(
        queue: Element, flow: VideoFlowMonitor, gate: EncoderGate, keyframeAt: Locked<UInt64?>,
        counters: Locked<Counters>, input: EncoderInput
    ) {
        queue.staticPad("sink")?.addProbe(.buffer) { info in
            guard let buffer = info.buffer else { return .ok }
            let time = info.runningTime(buffer.pts)
            flow.noteEncoderArrival(runningTime: time)
            guard gate.admit(runningTime: time) else { return .drop }
            counters.withLock { $0.admitted += 1 }
            return .ok
        }
        // Linking a recording bin sends RECONFIGURE upstream. Past this point it would make the camera
        // renegotiate, and the camera's serialized ALLOCATION query waits in every branch's queue — behind a
        // slow preview for hundreds of ms. The encoder's output caps never change, so it stops here.
        queue.staticPad("sink")?.addProbe(.eventUpstream) { info in
            info.event == .reconfigure ? .drop : .ok
        }
        // A segment cut asks for a keyframe on the first frame at or after the cut: the request goes in band,
        // just before that frame. x264enc in 1.22 offsets its running times by 1000 h (so DTS never goes
        // negative), which makes the encoder ignore or misplace a request that carries a running time.
        queue.staticPad("src")?.addProbe(.buffer) { info in
            guard let buffer = info.buffer else { return .ok }
            guard input.pass(info, buffer) else { return .drop }
            let rt = info.runningTime(buffer.pts)
            flow.noteEncoderInput(runningTime: rt)
            let due = keyframeAt.withLock { at -> Bool in
                guard let t = at, rt != .max, rt >= t else { return false }
                at = nil
                return true
            }
            if due { info.sendToPeer(.forceKeyUnitDownstream()) }
            return .ok
        }
    }
}
