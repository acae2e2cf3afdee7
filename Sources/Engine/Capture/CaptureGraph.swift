import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Logging
import Mp4
import Settings

/// The always-running part of the live graph (docs/DESIGN-NOTES.md, "The live graph as built"): cameras normalised to
/// one caps,
/// an input-selector, the raw tee with preview, frame tap and encoder branches, and the microphone chain.
/// Recording bins are attached behind `videoTee`/`audioTee` by `RecordingSession`.
public final class CaptureGraph: Sendable {
    public let pipeline = Pipeline(name: "appliance")
    package let config: ApplianceConfig
    package let logger: Logger
    package let selector: Element
    /// The black live filler's selector pad: shown while a camera starts, or when none works.
    let fillerPad: Pad
    package let filler: CameraSlot
    package let cameras: [CameraSlot]
    /// Names of cameras whose stream ended by itself (their EOS is dropped at the camera's bin).
    package let cameraEnded: AsyncStream<String>
    let videoTee: Element
    let audioTee: Element?
    /// The microphone's source fragment (nil without audio); stopped for good once it fails.
    private let microphone: Bin?
    private let microphoneReleased = Locked(false)
    /// h264parse: FKU requests go upstream from its sink pad into the encoder.
    package let parser: Element
    package let gate: EncoderGate
    /// The replaceable encoder in front of the parser (an encoder that fails is rebuilt as the next candidate); nil
    /// when the channel stores its network camera's stream as sent (`asSentInput`).
    package let encoderChain: EncoderChain?
    /// The appsrc that takes a network camera's H.264 as sent, in place of an encoder (`ApplianceConfig.storesAsSent`).
    package let asSentInput: Element?
    /// Whether the recordings hold the camera's own stream (no encoder runs).
    package var storesAsSent: Bool { asSentInput != nil }
    /// Where recording bins attach (tee pads, or held pre-record windows).
    package let outputs: RecordingOutputs
    package let flow: VideoFlowMonitor
    package let tap = FrameTap()
    /// What the recording files wrote: fragments and syncs (metrics).
    package let fragmentCounters = FragmentCounters()
    /// The web dashboard's live view (a branch that encodes JPEG only while someone watches).
    package let live: LiveView
    /// Scrubbing previews' frames, when `[thumbnail] scrub_every_s` is above 0.
    package let scrub: ScrubFrames?
    /// Motion detection's frames (a branch of small gray frames), when `[motion] enabled`.
    package let motion: MotionTap?
    /// Object detection's frames (gray, only while there is motion), when `[objects] enabled`.
    package let objects: ObjectTap?
    /// The microphone's level, when there is sound.
    package let sound: SoundTap?
    /// `[audio] source = "camera"`: routes the shown camera's sound to the microphone (the switcher tells it).
    package let cameraSound: CameraSound?
    /// The preview's textoverlay (`PreviewOverlay` sets its text), when the preview is on and `[preview] overlay`.
    package let previewOverlay: Element?
    /// A keyframe wanted at this running time (a segment cut); see the encoder input probe.
    private let keyframeAt = Locked<UInt64?>(nil)
    /// Fires with the first frame that leaves the camera selector (readiness).
    package let firstFrame = OneShot<Bool>()
    public var cameraNames: [String] { cameras.map(\.name) }
    public var cameraKinds: [String: String] { Dictionary(uniqueKeysWithValues: cameras.map { ($0.name, $0.kind) }) }
    /// The capture mode of each V4L2 camera that has started.
    package var cameraModes: [String: String] {
        Dictionary(
            uniqueKeysWithValues: cameras.compactMap { slot in slot.mode.withLock { $0 }.map { (slot.name, $0.summary) }
            })
    }
    public let audioKind: String
    /// The speaker's sound for the microphone's echo canceller (`[speaker] echo_cancel`); nil when it has none.
    package let echoReference: EchoReference?
    public let previewKind: String
    /// The pipeline's bus, read on its own thread once the graph runs (`BusWatcher` consumes the messages).
    package let busReader: BusReader

    /// `sharedSound`: how channels that record one microphone hand it over (`SharedSound`), one per appliance.
    public init(
        config: ApplianceConfig, fragments: FragmentLibrary, sharedSound: SharedSound? = nil, logger: Logger
    ) throws {
        GStreamer.initialize()
        self.config = config
        self.logger = logger
        flow = VideoFlowMonitor(framerate: config.video.framerate)
        live = LiveView(
            fps: min(config.web.liveFps, config.video.framerate), width: config.web.liveWidth,
            height: config.web.liveHeight)
        gate = EncoderGate(frameInterval: flow.frameInterval)
        let v = config.video
        let rawCaps = try Caps(v.rawCaps)

        // Cameras and a black live filler → selector → raw tee, every frame on one time grid.
        selector = try Element.make("input-selector", name: "selector")
        selector.set("sync-streams", false)
        try pipeline.add(selector)
        filler = try Self.makeFiller(
            fragments: fragments, rawCaps: rawCaps, video: v, pipeline: pipeline, selector: selector,
            sparse: config.storesAsSent)
        fillerPad = filler.selectorPad
        filler.runWithPipeline()
        selector.set("active-pad", pad: fillerPad)
        let (ended, endedContinuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(32))
        cameraEnded = ended
        let previewKind = SourceResolver.previewKind(config.preview)
        self.previewKind = previewKind
        let asSent = try Self.asSentOutput(config: config, previewKind: previewKind, pipeline: pipeline)
        asSentInput = asSent?.input
        cameras = try Self.makeCameras(
            config: config, fragments: fragments, rawCaps: rawCaps, pipeline: pipeline,
            selector: selector, logger: logger, asSent: asSent, onStreamEnd: { endedContinuation.yield($0) })
        let rawTee = try Self.addRawTee(after: selector, to: pipeline, flow: flow, firstFrame: firstFrame)

        // The raw tee's branches: preview, frame tap, live view, and the encoder behind its gate.
        previewOverlay = try Self.addPreview(
            kind: previewKind, config: config, fragments: fragments, to: pipeline,
            after: rawTee, logger: logger)
        try Self.addFrameTap(tap, to: pipeline, after: rawTee)
        try Self.addLiveBranch(to: pipeline, after: rawTee, live: live)
        scrub = try Self.addScrubBranch(config: config, to: pipeline, after: rawTee)
        (motion, objects) = try Self.addDetectionBranches(config: config, to: pipeline, after: rawTee)
        (parser, videoTee, encoderChain) = try Self.addVideo(
            config: config, fragments: fragments, to: pipeline, after: rawTee, asSent: asSent?.input, flow: flow,
            gate: gate, keyframeAt: keyframeAt)

        // Microphone → AAC.
        audioKind = try SourceResolver.audioKind(config.audio, logger: logger)
        sound = audioKind == "none" ? nil : SoundTap(detecting: config.sound.enabled)
        echoReference = try EchoReference.wanted(config, audioKind: audioKind) ? try EchoReference() : nil
        (microphone, audioTee, cameraSound) = try Self.addSound(
            kind: audioKind, config: config, fragments: fragments, to: pipeline,
            gate: gate, echo: echoReference, cameras: cameras, shared: sharedSound, logger: logger)
        Self.keepCapsFixed([videoTee, audioTee].compactMap { $0 })
        outputs = try RecordingOutputs(pipeline: pipeline, videoTee: videoTee, audioTee: audioTee, config: config)
        busReader = pipeline.makeBusReader()
        if outputs.window != nil { gate.openPermanently() }
    }

    /// raw tee after the selector, every frame leaving the selector snapped onto the output's time grid.
    static func addRawTee(
        after selector: Element, to pipeline: Pipeline, flow: VideoFlowMonitor, firstFrame: OneShot<Bool>
    ) throws -> Element {
        let rawTee = try Element.make("tee", name: "raw-tee")
        rawTee.set("allow-not-linked", true)
        try pipeline.add(rawTee)
        try selector.link(rawTee)
        snapToGrid(selector.staticPad("src"), flow: flow, firstFrame: firstFrame)
        return rawTee
    }

    /// The encoded streams' caps never change either: a recording bin linked to a tee must not make the encoders
    /// renegotiate. Their ALLOCATION query would wait in every recording bin's queue, where mp4mux holds video until
    /// the matching audio arrives: the encoder stalled for ~230 ms at each segment cut and the leaky queue in front
    /// of it dropped 6 frames (measured).
    static func keepCapsFixed(_ tees: [Element]) {
        for tee in tees {
            tee.staticPad("sink")?.addProbe(.eventUpstream) { info in info.event == .reconfigure ? .drop : .ok }
        }
    }

    /// The microphone failed (unplugged, a read error): its source is stopped, which closes the sound device. A
    /// card that went away is freed only when its last user lets go of it (snd-aloop's unbind waits for that, a
    /// USB card's stays a zombie until then), so a dead `alsasrc` must not keep it open. The rest of the graph goes
    /// on: a recording keeps its picture, and its sound ends where the microphone did. Returns false if it was
    /// already released. Blocking (a state change): call it off the cooperative pool.
    package func releaseMicrophone() -> Bool {
        guard let microphone,
            microphoneReleased.withLock({ released in
                defer { released = true }
                return !released
            })
        else {
            return false
        }
        microphone.setLockedState(true)
        _ = try? microphone.setState(.null)
        return true
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
            try echoReference?.start()
            try pipeline.setState(.playing)
        } catch {
            let detail = pipeline.popError(timeout: ClockTime(milliseconds: 500))
            _ = try? pipeline.setState(.null)
            echoReference?.stop()
            throw detail ?? (error as? GStreamerError) ?? GStreamerError(element: "appliance", message: "\(error)")
        }
        let (state, ok) = pipeline.state(timeout: ClockTime(seconds: 10))
        if !ok || state != .playing {
            let detail = pipeline.popError(timeout: ClockTime(milliseconds: 500))
            _ = try? pipeline.setState(.null)
            echoReference?.stop()
            throw detail
                ?? GStreamerError(element: "appliance", message: "pipeline did not reach playing (state \(state))")
        }
        if let early = pipeline.popError(timeout: .zero) {
            _ = try? pipeline.setState(.null)
            echoReference?.stop()
            throw early
        }
        busReader.start()
    }

    /// Stops everything (after any recording was finalised). Camera bins have locked states: stopped one by one; one
    /// whose start is stuck (`CameraSlot.isStuck`) is left to that call.
    public func stop() {
        for camera in cameras { camera.stopNow() }
        filler.stopNow()
        _ = try? pipeline.setState(.null)
        echoReference?.stop()
        busReader.stop()
    }

    /// Running time of the pipeline now.
    package var runningTimeNow: UInt64 { pipeline.runningTimeNow?.nanoseconds ?? 0 }

    /// Asks the video encoder for a keyframe (with SPS/PPS) as soon as possible.
    func requestKeyframe() {
        parser.staticPad("sink")?.push(.forceKeyUnitUpstream())
    }

    /// Asks the video encoder for a keyframe on the first frame at or after `runningTime` (a segment cut).
    func requestKeyframe(at runningTime: UInt64) {
        keyframeAt.withLock { $0 = runningTime }
    }

    /// The latest raw frame, for snapshots.
    package var latestFrame: Sample? { tap.latest }
}
