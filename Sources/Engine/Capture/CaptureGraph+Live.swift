import ApplianceBase
import GStreamerKit

extension CaptureGraph {
    /// raw tee ! queue (leaky, 1) [probe: only with a viewer, at most live fps] ! videoscale ! capsfilter ! jpegenc
    /// ! appsink. The probe drops before the scaler, so with no viewer nothing is scaled or encoded.
    static func addLiveBranch(to pipeline: Pipeline, after rawTee: Element, live: LiveView) throws {
        try addJPEGBranch(
            "live", to: pipeline, after: rawTee, width: live.width, height: live.height, quality: 75,
            admit: { live.admit(runningTime: $0) },
            receive: { sample in
                guard let bytes = sample.copyBytes() else { return }
                live.receive(jpeg: bytes, ageNanoseconds: age(of: sample, in: pipeline))
            })
    }

    /// raw tee ! queue (leaky, 1) [probe: `admit` with the frame's running time] ! videoscale ! capsfilter (size) !
    /// jpegenc ! appsink → `receive`, on the streaming thread. The probe drops before the scaler: a frame not
    /// admitted is never scaled or encoded. Elements are named `<name>-queue`, `<name>-scale`… (the live view,
    /// the scrubbing previews).
    static func addJPEGBranch(
        _ name: String, to pipeline: Pipeline, after rawTee: Element, width: Int, height: Int, quality: Int,
        admit: @escaping @Sendable (UInt64?) -> Bool, receive: @escaping @Sendable (Sample) -> Void
    ) throws {
        let queue = try leakyQueue("\(name)-queue", buffers: 1)
        let scale = try Element.make("videoscale", name: "\(name)-scale")
        let caps = try Element.make("capsfilter", name: "\(name)-caps")
        caps.set("caps", try Caps("video/x-raw,width=\(width),height=\(height),pixel-aspect-ratio=1/1"))
        let encoder = try Element.make("jpegenc", name: "\(name)-jpeg")
        encoder.set("quality", int: quality)
        let sink = try latestFrameSink("\(name)-sink")
        try pipeline.add([queue, scale, caps, encoder, sink])
        try Element.link([rawTee, queue, scale, caps, encoder, sink])
        keepAllocationQueriesOut(of: queue)
        queue.staticPad("sink")?.addProbe(.buffer) { info in
            guard let buffer = info.buffer else { return .ok }
            return admit(info.runningTime(buffer.pts)) ? .ok : .drop
        }
        AppSink.onNewSample(sink, receive)
    }

    /// An appsink for a branch that wants the latest frame only: one buffer, dropping the older, not synced to the
    /// clock, and not prerolling (it may see no buffer for a long time and must not hold up the graph's start).
    static func latestFrameSink(_ name: String) throws -> Element {
        let sink = try Element.make("appsink", name: name)
        sink.set("sync", false)
        sink.set("max-buffers", uint: 1)
        sink.set("drop", true)
        sink.set("enable-last-sample", false)
        sink.set("async", false)
        return sink
    }

    /// How long ago a sample's frame was captured: the pipeline's running time now minus the sample's.
    package static func age(of sample: Sample, in pipeline: Pipeline) -> UInt64 {
        let now = pipeline.runningTimeNow?.nanoseconds ?? 0
        let captured = sample.runningTime?.nanoseconds ?? now
        return now > captured ? now - captured : 0
    }
}
