import ApplianceBase
import GStreamerKit
import Settings

extension CaptureGraph {
    /// What status says for the encoder of a channel that stores its camera's stream as sent.
    package static let asSentEncoder = "as-sent"

    /// The appsrc a network camera's receiver hands its H.264 to, as sent (`ApplianceConfig.storesAsSent`): live,
    /// timestamps given by the receiver (moved onto this pipeline's running time), never waited on. Room for a few
    /// seconds of units: one dropped would spoil the picture until the next keyframe, so it drops only when the
    /// graph has stalled for that long.
    static func makeAsSentInput(to pipeline: Pipeline) throws -> Element {
        let input = try Element.make("appsrc", name: "as-sent")
        try input.set("format", string: "time")
        input.set("is-live", true)
        input.set("do-timestamp", false)
        input.set("block", false)
        input.set("max-buffers", uint64: 300)
        input.set("max-bytes", uint64: 32 << 20)
        try input.set("leaky-type", string: "downstream")
        try pipeline.add(input)
        return input
    }

    /// The as-sent input and what the camera's receiver is told, when the channel stores its camera's stream as sent.
    static func asSentOutput(config: ApplianceConfig, previewKind: String, pipeline: Pipeline) throws
        -> AsSentOutput?
    {
        guard config.storesAsSent else { return nil }
        return AsSentOutput(
            input: try makeAsSentInput(to: pipeline),
            decodeEveryFrame: decodesEveryFrame(config, previewKind: previewKind))
    }

    /// The encoded video: the camera's own stream where it is stored as sent (`asSent`, no encoder chain), else the
    /// encoder behind its gate.
    static func addVideo(
        config: ApplianceConfig, fragments: FragmentLibrary, to pipeline: Pipeline, after rawTee: Element,
        asSent: Element?, flow: VideoFlowMonitor, gate: EncoderGate, keyframeAt: Locked<UInt64?>
    ) throws -> (parser: Element, tee: Element, chain: EncoderChain?) {
        if let asSent {
            let (parser, tee) = try addAsSentVideo(input: asSent, to: pipeline, gate: gate)
            return (parser, tee, nil)
        }
        return try addVideoEncoder(
            config: config, fragments: fragments, to: pipeline, after: rawTee, flow: flow, gate: gate,
            keyframeAt: keyframeAt)
    }

    /// as-sent appsrc ! h264parse ! AVC capsfilter ! video tee, behind the same gate as an encoder (closed while
    /// nothing records or streams): the camera's own stream goes into the recordings and the live streams, not
    /// decoded and not encoded again. A recording starts, and a segment is cut, on the camera's own keyframes: a
    /// keyframe asked for goes to an appsrc, which has none to give.
    static func addAsSentVideo(
        input: Element, to pipeline: Pipeline, gate: EncoderGate
    ) throws -> (parser: Element, tee: Element) {
        let (parser, tee) = try addParsedVideoTee(to: pipeline)
        try input.link(parser)
        input.staticPad("src")?.addProbe(.buffer) { info in
            guard let buffer = info.buffer else { return .ok }
            return gate.admit(runningTime: info.runningTime(buffer.pts)) ? .ok : .drop
        }
        return (parser, tee)
    }

    /// Whether a channel that stores as sent has its camera decode every frame: detection and a preview look at
    /// every one; thumbnails, snapshots and scrubbing make do with one a GOP.
    static func decodesEveryFrame(_ config: ApplianceConfig, previewKind: String) -> Bool {
        config.motion.enabled || config.objects.enabled || previewKind != "none"
    }
}
