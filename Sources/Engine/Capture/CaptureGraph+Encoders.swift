import ApplianceBase
import GStreamerKit
import Logging
import Mp4
import Settings

extension CaptureGraph {
    /// raw tee ! the encoder chain (queue, [clockoverlay], encoder fragment: `EncoderChain`, rebuilt if the encoder
    /// fails) ! h264parse ! AVC capsfilter ! video tee, behind the encoder gate (closed while idle). Returns the parser
    /// (keyframe requests go upstream from its sink pad into the encoder), the tee and the chain.
    static func addVideoEncoder(
        config: ApplianceConfig, fragments: FragmentLibrary, to pipeline: Pipeline,
        after rawTee: Element, flow: VideoFlowMonitor, gate: EncoderGate,
        keyframeAt: Locked<UInt64?>
    ) throws -> (parser: Element, tee: Element, chain: EncoderChain) {
        let (parser, tee) = try addParsedVideoTee(to: pipeline)
        let chain = try EncoderChain(
            config: config, fragments: fragments, pipeline: pipeline, rawTee: rawTee, parser: parser,
            flow: flow, gate: gate, keyframeAt: keyframeAt)
        return (parser, tee, chain)
    }

    /// h264parse (parameter sets in every keyframe) ! AVC capsfilter ! video tee: what an encoder, or a camera's
    /// stream stored as sent, feeds into.
    static func addParsedVideoTee(to pipeline: Pipeline) throws -> (parser: Element, tee: Element) {
        let parser = try Element.make("h264parse", name: "video-parse")
        parser.set("config-interval", int: -1)
        let format = try encodedFormat()
        let tee = try Element.make("tee", name: "video-tee")
        tee.set("allow-not-linked", true)
        try pipeline.add([parser, format, tee])
        try Element.link([parser, format, tee])
        return (parser, tee)
    }

    /// The one format every encoder's stream leaves the parser in: AVC, whole access units. The tee's caps never
    /// change once set (its upstream RECONFIGURE is dropped), and mp4mux takes only AVC: an encoder that writes
    /// byte-stream (openh264, most hardware ones) left the tee in byte-stream and no recording could link.
    package static func encodedFormat(name: String = "video-format") throws -> Element {
        let filter = try Element.make("capsfilter", name: name)
        filter.set("caps", try Caps("video/x-h264,stream-format=avc,alignment=au"))
        return filter
    }

    /// `[video] timestamp_overlay`: the local date and time, bottom left on a shaded band, into every encoded frame.
    static func makeTimestampOverlay(video: ApplianceConfig.Video, name: String = "timestamp-overlay") throws -> Element
    {
        let clock = try Element.make("clockoverlay", name: name)
        clock.set("time-format", "%Y-%m-%d %H:%M:%S")
        try clock.set("valignment", string: "bottom")
        try clock.set("halignment", string: "left")
        clock.set("shaded-background", true)
        clock.set("font-desc", "Sans \(fontSize(video))")
        return clock
    }

    /// The microphone's fragment ! audioconvert ! audioresample ! capsfilter ! queue ! AAC ! aacparse ! audio tee.
    /// Like video, audio is not encoded while nothing records (the gate opens at record start, before the planned
    /// start time, so the first AAC frame of the clip is complete). Returns the source bin and the tee.
    /// The microphone chain for `kind` (nothing for "none"), and for "camera" the router of the cameras' sound.
    static func addSound(
        kind: String, config: ApplianceConfig, fragments: FragmentLibrary, to pipeline: Pipeline, gate: EncoderGate,
        echo: EchoReference?, cameras: [CameraSlot], shared: SharedSound?, logger: Logger
    ) throws -> (source: Bin?, tee: Element?, cameraSound: CameraSound?) {
        guard kind != "none" else { return (nil, nil, nil) }
        let (microphone, tee) = try addMicrophone(
            kind: kind, config: config, fragments: fragments, to: pipeline, gate: gate, echo: echo,
            shared: shared)
        if kind == ApplianceConfig.sharedAudioSource { try listen(microphone, config: config, shared: shared) }
        guard kind == "camera" else { return (microphone, tee, nil) }
        if !cameras.contains(where: { $0.config.source == "rtsp" }) {
            logger.warning(
                """
                audio: [audio] source = \"camera\" but no camera is an IP camera (source = \"rtsp\"): the sound is \
                silence
                """
            )
        }
        return (microphone, tee, try CameraSound(microphone: microphone, cameras: cameras, audio: config.audio))
    }

    /// A channel that records another channel's microphone (`SharedSound`) takes its sound from now on.
    private static func listen(_ microphone: Bin, config: ApplianceConfig, shared: SharedSound?) throws {
        let channel = config.channels.first?.name ?? ""
        guard let input = microphone.element(named: "camera-sound"), shared?.listen(channel, input: input) == true
        else {
            throw GStreamerError(
                element: "microphone", message: "channel \(channel): no channel before it hands over the microphone")
        }
    }

    /// `shared`: where the microphone's sound goes to the other channels that record it (`[audio] sharedWith`),
    /// or, for a channel whose source is `shared`, where it comes from (its bin is then `audio-camera`'s appsrc).
    static func addMicrophone(
        kind: String, config: ApplianceConfig, fragments: FragmentLibrary, to pipeline: Pipeline,
        gate: EncoderGate, echo: EchoReference? = nil, shared: SharedSound? = nil
    ) throws -> (source: Bin, tee: Element) {
        let a = config.audio
        let source = try fragments.makeBin(
            "sources", "audio-\(kind == ApplianceConfig.sharedAudioSource ? "camera" : kind)",
            [
                "device": a.device, "rate": "\(a.rate)", "channels": "\(a.channels)",
            ], binName: "microphone")
        let convert = try Element.make("audioconvert", name: "audio-convert")
        let resample = try Element.make("audioresample", name: "audio-resample")
        let filter = try Element.make("capsfilter", name: "audio-caps")
        filter.set("caps", try Caps("audio/x-raw,rate=\(a.rate),channels=\(a.channels)"))
        // The level of everything the microphone hears (recording or not), RMS and peak ten times a second, posted on
        // the bus as "level" element messages (`SoundTap`); it passes the buffers on untouched.
        let level = try Element.make("level", name: "audio-level")
        level.set("interval", uint64: 100_000_000)
        level.set("post-messages", true)
        // Room for 5 s of sound (1 MB at 48 kHz stereo, used only while the encoder side stalls): with the default
        // 1 s, the stall of a recording's start on a slow CPU blocked the microphone and the card overran (the lab
        // VM, emulated CPU: alsasrc dropped 1.5 to 2.1 s at each record start).
        let queue = try Element.make("queue", name: "audio-queue")
        queue.set("max-size-time", uint64: 5_000_000_000)
        queue.set("max-size-buffers", uint: 0)
        queue.set("max-size-bytes", uint: 0)
        queue.staticPad("sink")?.addProbe(.buffer) { _ in gate.isOpen ? .ok : .drop }
        let aac = try fragments.makeBin(
            "encoders", "aac", FragmentLibrary.audioEncoderValues(a), binName: "audio-encoder")
        let aacParse = try Element.make("aacparse", name: "audio-parse")
        let tee = try Element.make("tee", name: "audio-tee")
        tee.set("allow-not-linked", true)
        // The echo canceller, when the speaker has a reference for it, takes the speaker's sound out before anything
        // measures or records the microphone.
        let canceller =
            try echo.map { [try $0.makeCanceller(), try Element.make("audioconvert", name: "echo-convert")] } ?? []
        // The other channels that record this microphone take its sound here, as it is measured and recorded.
        let sharing = a.sharedWith.isEmpty ? nil : shared
        let shareTee = try sharing.map { _ in try Element.make("tee", name: "share-tee") }
        shareTee?.set("allow-not-linked", true)
        let chain =
            [source, convert, resample, filter] + canceller + [shareTee].compactMap { $0 }
            + [level, queue, aac, aacParse, tee]
        try pipeline.add(chain)
        try Element.link(chain)
        if let sharing, let shareTee {
            try sharing.addOutlets(for: a.sharedWith, after: shareTee, audio: a, to: pipeline)
        }
        return (source, tee)
    }
}
