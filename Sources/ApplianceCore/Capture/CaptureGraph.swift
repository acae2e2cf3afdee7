import ApplianceProtocol
import Foundation
import GStreamerKit
import Logging

/// The always-running part of the live graph (DESIGN.md "The live graph"): cameras normalised to one caps,
/// an input-selector, the raw tee with preview, frame tap and encoder branches, and the microphone chain.
/// Recording bins are attached behind `videoTee`/`audioTee` by `RecordingSession`.
public final class CaptureGraph: Sendable {
    public let pipeline = Pipeline(name: "appliance")
    let config: ApplianceConfig
    let logger: Logger
    let selector: Element
    /// The black live filler's selector pad: shown while a camera starts, or when none works.
    let fillerPad: Pad
    let filler: CameraSlot
    let cameras: [CameraSlot]
    /// Names of cameras whose stream ended by itself (their EOS is dropped at the camera's bin).
    let cameraEnded: AsyncStream<String>
    let videoTee: Element
    let audioTee: Element?
    /// The microphone's source fragment (nil without audio); stopped for good once it fails.
    private let microphone: Bin?
    private let microphoneReleased = Locked(false)
    /// h264parse: FKU requests go upstream from its sink pad into the encoder.
    let parser: Element
    let gate: EncoderGate
    /// Where recording bins attach (tee pads, or held pre-record windows).
    let outputs: RecordingOutputs
    let flow: VideoFlowMonitor
    let tap = FrameTap()
    /// The web dashboard's live view (a branch that encodes JPEG only while someone watches).
    let live: LiveView
    /// The preview's textoverlay (`PreviewOverlay` sets its text), when the preview is on and `[preview] overlay`.
    let previewOverlay: Element?
    /// A keyframe wanted at this running time (a segment cut); see the encoder input probe.
    private let keyframeAt = Locked<UInt64?>(nil)
    /// Fires with the first frame that leaves the camera selector (readiness).
    let firstFrame = OneShot<Bool>()
    public var cameraNames: [String] { cameras.map(\.name) }
    public var cameraKinds: [String: String] { Dictionary(uniqueKeysWithValues: cameras.map { ($0.name, $0.kind) }) }
    /// The capture mode of each V4L2 camera that has started.
    var cameraModes: [String: String] {
        Dictionary(uniqueKeysWithValues: cameras.compactMap { slot in slot.mode.withLock { $0 }.map { (slot.name, $0.summary) } })
    }
    public let audioKind: String
    public let previewKind: String
    /// The pipeline's bus, read on its own thread once the graph runs (`BusWatcher` consumes the messages).
    let busReader: BusReader

    public init(config: ApplianceConfig, fragments: FragmentLibrary, logger: Logger) throws {
        GStreamer.initialize()
        self.config = config
        self.logger = logger
        flow = VideoFlowMonitor(framerate: config.video.framerate)
        live = LiveView(fps: min(config.web.liveFps, config.video.framerate), width: config.web.liveWidth, height: config.web.liveHeight)
        gate = EncoderGate(frameInterval: flow.frameInterval)
        let v = config.video
        let rawCaps = try Caps("video/x-raw,format=I420,width=\(v.width),height=\(v.height),framerate=\(v.framerate)/1,pixel-aspect-ratio=1/1")

        // Cameras (each in its own bin, normalised to the output caps) and a black live filler → selector.
        selector = try Element.make("input-selector", name: "selector")
        selector.set("sync-streams", false)
        try pipeline.add(selector)
        let (ended, endedContinuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(32))
        // The filler is a camera slot of its own: it runs with the pipeline while it starts (video must flow for
        // the pipeline to reach PLAYING), then only while it is shown (see CameraSwitcher.showFiller).
        var fillerConfig = ApplianceConfig.Camera()
        fillerConfig.name = "filler"
        fillerConfig.pipeline = "videotestsrc is-live=true pattern=black"
        filler = try CameraSlot(config: fillerConfig, kind: "pipeline", initialState: .standby, fragments: fragments,
                                rawCaps: rawCaps, video: v, pipeline: pipeline, selector: selector, onStreamEnd: { _ in })
        fillerPad = filler.selectorPad
        filler.runWithPipeline()
        selector.set("active-pad", pad: fillerPad)
        cameraEnded = ended
        var slots: [CameraSlot] = []
        for camera in config.cameras {
            let (kind, missing) = try SourceResolver.cameraKind(camera, logger: logger)
            slots.append(try CameraSlot(
                config: camera, kind: kind, initialState: missing.map { .missing($0) } ?? .standby, fragments: fragments,
                rawCaps: rawCaps, video: v, pipeline: pipeline, selector: selector,
                onStreamEnd: { name in endedContinuation.yield(name) }))
        }
        cameras = slots

        // Selector → raw tee. Frames are snapped onto one time grid; a frame whose slot is taken is dropped.
        let rawTee = try Element.make("tee", name: "raw-tee")
        rawTee.set("allow-not-linked", true)
        try pipeline.add(rawTee)
        try selector.link(rawTee)
        // Each camera's segment maps its timestamps into the pipeline's running time (cameras started later carry a
        // pad offset). Downstream sees only the first segment, an identity one, and every frame's PTS is rewritten
        // to its running time snapped to the grid: PTS == running time from here on, whichever camera is active.
        let flow = self.flow
        let firstFrame = self.firstFrame
        let lastFrame = Locked<BufferRef?>(nil)
        let sentSegment = Locked(false)
        // The thread pushing gap-filling copies: their PTS is already running time on the grid. Converting them
        // through the active camera's segment (which carries its start offset) would push them into the future,
        // open another gap and recurse without end (a stack overflow, found with two always-on cameras).
        let fillingThread = Locked<pthread_t?>(nil)
        selector.staticPad("src")?.addProbe([.buffer, .eventDownstream]) { info in
            if info.event == .eos { return .drop }  // a source's end never ends the graph
            if info.event == .segment { return sentSegment.withLock { sent in defer { sent = true }; return sent } ? .drop : .ok }
            guard let buffer = info.buffer else { return .ok }
            let isCopy = fillingThread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
            let time = buffer.pts == .max ? .max : isCopy ? buffer.pts : info.runningTime(buffer.pts)
            // Hold the last frame over a short gap; the copies come back through this probe first, in order.
            if !isCopy, let gap = flow.gapBefore(time: time), let previous = lastFrame.withLock({ $0 }) {
                fillingThread.withLock { $0 = pthread_self() }
                info.pushCopies(of: previous, start: gap.start, step: flow.frameInterval, count: gap.count)
                fillingThread.withLock { $0 = nil }
                flow.noteFilled(gap.count)
            }
            guard let pts = flow.output(time: time) else { return .drop }
            if pts != buffer.pts { info.setBufferTiming(pts: pts, duration: flow.frameInterval) }
            if let final = info.buffer { lastFrame.withLock { $0 = final.retain() } }
            if !firstFrame.isFired { firstFrame.fire(true) }
            return .ok
        }

        // Preview: leaky, never stalls the graph. The overlay (REC, elapsed time, camera) sits behind the leaky
        // queue, so it is drawn only on frames the display takes, and never reaches the file.
        previewKind = SourceResolver.previewKind(config.preview)
        var previewOverlay: Element?
        if previewKind != "none" {
            let queue = try Self.leakyQueue("preview-queue", buffers: 2)
            let sink = try fragments.makeBin("previews", previewKind, ["kms_card": KMSCard.sinkOptions()], binName: "preview")
            if config.preview.overlay {
                do {
                    previewOverlay = try Self.makePreviewOverlay(video: v)
                } catch {
                    logger.warning("preview overlay off: \(error); \(PluginPackages.fix(forMissing: "textoverlay"))")
                }
            }
            let chain = [queue] + (previewOverlay.map { [$0] } ?? []) + [sink]
            try pipeline.add(chain)
            try Element.link([rawTee] + chain)
            Self.keepAllocationQueriesOut(of: queue)
        }
        self.previewOverlay = previewOverlay

        // Frame tap for thumbnails and snapshots.
        let tapQueue = try Self.leakyQueue("tap-queue", buffers: 1)
        let appsink = try Element.make("appsink", name: "frame-tap")
        appsink.set("sync", false)
        appsink.set("max-buffers", uint: 1)
        appsink.set("drop", true)
        appsink.set("enable-last-sample", false)
        try pipeline.add([tapQueue, appsink])
        try Element.link([rawTee, tapQueue, appsink])
        Self.keepAllocationQueriesOut(of: tapQueue)
        let tap = self.tap
        // The tap needs every frame only while a thumbnail is due; otherwise one in ten keeps snapshots fresh.
        let tapCount = Locked(0)
        tapQueue.staticPad("sink")?.addProbe(.buffer) { _ in
            if tap.wantsEveryFrame { return .ok }
            return tapCount.withLock { n in defer { n += 1 }; return n % 10 == 0 } ? .ok : .drop
        }
        AppSink.onNewSample(appsink) { sample in tap.receive(sample) }

        try Self.addLiveBranch(to: pipeline, after: rawTee, live: live)

        // Encoder branch behind a gate (closed while idle).
        let encoderQueue = try Self.leakyQueue("encoder-queue", buffers: 5)
        let encoder = try fragments.makeBin("encoders", v.encoder, FragmentLibrary.videoEncoderValues(v), binName: "video-encoder")
        parser = try Element.make("h264parse", name: "video-parse")
        parser.set("config-interval", int: -1)
        videoTee = try Element.make("tee", name: "video-tee")
        videoTee.set("allow-not-linked", true)
        // The burned-in date and time sits behind the gate (drawn only on frames that are encoded) and after the
        // encoder queue's probes: the in-band keyframe request below passes through it to the encoder.
        var timestamp: [Element] = []
        if v.timestampOverlay {
            do {
                timestamp = [try Self.makeTimestampOverlay(video: v)]
            } catch {
                throw GStreamerError(element: "timestamp-overlay", message: "[video] timestamp_overlay needs clockoverlay: \(PluginPackages.fix(forMissing: "clockoverlay"))")
            }
        }
        let encoderChain = [encoderQueue] + timestamp + [encoder, parser, videoTee]
        try pipeline.add(encoderChain)
        try Element.link([rawTee] + encoderChain)
        let gate = self.gate
        encoderQueue.staticPad("sink")?.addProbe(.buffer) { info in
            guard let buffer = info.buffer else { return .ok }
            let time = info.runningTime(buffer.pts)
            flow.noteEncoderArrival(runningTime: time)
            return gate.admit(runningTime: time) ? .ok : .drop
        }
        // Linking a recording bin sends RECONFIGURE upstream. Past this point it would make the camera
        // renegotiate, and the camera's serialized ALLOCATION query waits in every branch's queue — behind a
        // slow preview for hundreds of ms. The encoder's output caps never change, so it stops here.
        encoderQueue.staticPad("sink")?.addProbe(.eventUpstream) { info in
            info.event == .reconfigure ? .drop : .ok
        }
        // A segment cut asks for a keyframe on the first frame at or after the cut: the request goes in band,
        // just before that frame. x264enc in 1.22 offsets its running times by 1000 h (so DTS never goes
        // negative), which makes the encoder ignore or misplace a request that carries a running time.
        let keyframeAt = self.keyframeAt
        encoderQueue.staticPad("src")?.addProbe(.buffer) { info in
            guard let buffer = info.buffer else { return .ok }
            let rt = info.runningTime(buffer.pts)
            flow.noteEncoderInput(runningTime: rt)
            let due = keyframeAt.withLock { at -> Bool in
                guard let t = at, rt != .max, rt >= t else { return false }
                at = nil
                return true
            }
            if due { _ = info.sendToPeer(.forceKeyUnitDownstream()) }
            return .ok
        }

        // Microphone → AAC.
        audioKind = try SourceResolver.audioKind(config.audio, logger: logger)
        if audioKind != "none" {
            let a = config.audio
            let source = try fragments.makeBin("sources", "audio-\(audioKind)", [
                "device": a.device, "rate": "\(a.rate)", "channels": "\(a.channels)",
            ], binName: "microphone")
            let convert = try Element.make("audioconvert", name: "audio-convert")
            let resample = try Element.make("audioresample", name: "audio-resample")
            let filter = try Element.make("capsfilter", name: "audio-caps")
            filter.set("caps", try Caps("audio/x-raw,rate=\(a.rate),channels=\(a.channels)"))
            let queue = try Element.make("queue", name: "audio-queue")
            // Like video, audio is not encoded while nothing records (the gate opens at record start, before the
            // planned start time, so the first AAC frame of the clip is complete).
            let gate = self.gate
            queue.staticPad("sink")?.addProbe(.buffer) { _ in gate.isOpen ? .ok : .drop }
            let aac = try fragments.makeBin("encoders", "aac", FragmentLibrary.audioEncoderValues(a), binName: "audio-encoder")
            let aacParse = try Element.make("aacparse", name: "audio-parse")
            let tee = try Element.make("tee", name: "audio-tee")
            tee.set("allow-not-linked", true)
            let chain = [source, convert, resample, filter, queue, aac, aacParse, tee]
            try pipeline.add(chain)
            try Element.link(chain)
            audioTee = tee
            microphone = source
        } else {
            audioTee = nil
            microphone = nil
        }
        // The encoded streams' caps never change either: a recording bin linked to a tee must not make the
        // encoders renegotiate. Their ALLOCATION query would wait in every recording bin's queue, where mp4mux
        // holds video until the matching audio arrives: the encoder stalled for ~230 ms at each segment cut and
        // the leaky queue in front of it dropped 6 frames (measured).
        for tee in [videoTee, audioTee].compactMap({ $0 }) {
            tee.staticPad("sink")?.addProbe(.eventUpstream) { info in info.event == .reconfigure ? .drop : .ok }
        }
        outputs = try RecordingOutputs(pipeline: pipeline, videoTee: videoTee, audioTee: audioTee, config: config)
        busReader = pipeline.makeBusReader()
        if outputs.window != nil { gate.openPermanently() }
    }

    /// The microphone failed (unplugged, a read error): its source is stopped, which closes the sound device. A
    /// card that went away is freed only when its last user lets go of it (snd-aloop's unbind waits for that, a
    /// USB card's stays a zombie until then), so a dead `alsasrc` must not keep it open. The rest of the graph goes
    /// on: a recording keeps its picture, and its sound ends where the microphone did. Returns false if it was
    /// already released. Blocking (a state change): call it off the cooperative pool.
    func releaseMicrophone() -> Bool {
        guard let microphone, microphoneReleased.withLock({ released in defer { released = true }; return !released }) else {
            return false
        }
        microphone.setLockedState(true)
        _ = try? microphone.setState(.null)
        return true
    }

    /// The preview's overlay: top left, white with an outline, sized to the picture; empty (a pass-through) until
    /// `PreviewOverlay` gives it text.
    static func makePreviewOverlay(video: ApplianceConfig.Video) throws -> Element {
        let overlay = try Element.make("textoverlay", name: "preview-overlay")
        overlay.set("text", "")
        try overlay.set("valignment", string: "top")
        try overlay.set("halignment", string: "left")
        overlay.set("font-desc", "Sans Bold \(fontSize(video))")
        overlay.set("wait-text", false)
        return overlay
    }

    /// `[video] timestamp_overlay`: the local date and time, bottom left on a shaded band, into every encoded frame.
    static func makeTimestampOverlay(video: ApplianceConfig.Video) throws -> Element {
        let clock = try Element.make("clockoverlay", name: "timestamp-overlay")
        clock.set("time-format", "%Y-%m-%d %H:%M:%S")
        try clock.set("valignment", string: "bottom")
        try clock.set("halignment", string: "left")
        clock.set("shaded-background", true)
        clock.set("font-desc", "Sans \(fontSize(video))")
        return clock
    }

    /// Font size for the picture's height: 20 at 720p, 30 at 1080p (textoverlay draws in the picture's pixels).
    static func fontSize(_ video: ApplianceConfig.Video) -> Int { max(8, video.height / 36) }

    /// A serialized ALLOCATION query waits until a queue has drained; in a leaky branch that may be a slow
    /// display. Such branches take buffers as they come, so the query is refused there and answered by the others.
    static func keepAllocationQueriesOut(of queue: Element) {
        queue.staticPad("sink")?.addProbe(.queryDownstream) { info in
            info.isAllocationQuery ? .drop : .ok
        }
    }

    static func leakyQueue(_ name: String, buffers: UInt) throws -> Element {
        let queue = try Element.make("queue", name: name)
        try queue.set("leaky", string: "downstream")
        queue.set("max-size-buffers", uint: buffers)
        queue.set("max-size-bytes", uint: 0)
        queue.set("max-size-time", uint64: 0)
        return queue
    }

    /// Starts the graph; a source or fragment that fails at start is reported with GStreamer's message.
    public func start() throws {
        do {
            try pipeline.setState(.playing)
        } catch {
            let detail = pipeline.popError(timeout: ClockTime(milliseconds: 500))
            _ = try? pipeline.setState(.null)
            throw detail ?? (error as? GStreamerError) ?? GStreamerError(element: "appliance", message: "\(error)")
        }
        let (state, ok) = pipeline.state(timeout: ClockTime(seconds: 10))
        if !ok || state != .playing {
            let detail = pipeline.popError(timeout: ClockTime(milliseconds: 500))
            _ = try? pipeline.setState(.null)
            throw detail ?? GStreamerError(element: "appliance", message: "pipeline did not reach playing (state \(state))")
        }
        if let early = pipeline.popError(timeout: .zero) {
            _ = try? pipeline.setState(.null)
            throw early
        }
        busReader.start()
    }

    /// Stops everything (after any recording was finalised). Camera bins have locked states: stopped one by one.
    public func stop() {
        for camera in cameras { camera.stop() }
        filler.stop()
        _ = try? pipeline.setState(.null)
        busReader.stop()
    }

    /// Running time of the pipeline now.
    var runningTimeNow: UInt64 { pipeline.runningTimeNow?.nanoseconds ?? 0 }

    /// Asks the video encoder for a keyframe (with SPS/PPS) as soon as possible.
    func requestKeyframe() {
        parser.staticPad("sink")?.push(.forceKeyUnitUpstream())
    }

    /// Asks the video encoder for a keyframe on the first frame at or after `runningTime` (a segment cut).
    func requestKeyframe(at runningTime: UInt64) {
        keyframeAt.withLock { $0 = runningTime }
    }

    /// The latest raw frame, for snapshots.
    var latestFrame: Sample? { tap.latest }
}
