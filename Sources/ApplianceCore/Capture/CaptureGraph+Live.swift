import GStreamerKit

extension CaptureGraph {
    /// raw tee ! queue (leaky, 1) [probe: only with a viewer, at most live fps] ! videoscale ! capsfilter ! jpegenc
    /// ! appsink. The probe drops before the scaler, so with no viewer nothing is scaled or encoded.
    static func addLiveBranch(to pipeline: Pipeline, after rawTee: Element, live: LiveView) throws {
        let queue = try leakyQueue("live-queue", buffers: 1)
        let scale = try Element.make("videoscale", name: "live-scale")
        let caps = try Element.make("capsfilter", name: "live-caps")
        caps.set("caps", try Caps("video/x-raw,width=\(live.width),height=\(live.height),pixel-aspect-ratio=1/1"))
        let encoder = try Element.make("jpegenc", name: "live-jpeg")
        encoder.set("quality", int: 75)
        let sink = try Element.make("appsink", name: "live-sink")
        sink.set("sync", false)
        sink.set("max-buffers", uint: 1)
        sink.set("drop", true)
        sink.set("enable-last-sample", false)
        sink.set("async", false)  // it sees no buffer without a viewer: it must not hold up the graph's preroll
        try pipeline.add([queue, scale, caps, encoder, sink])
        try Element.link([rawTee, queue, scale, caps, encoder, sink])
        keepAllocationQueriesOut(of: queue)
        queue.staticPad("sink")?.addProbe(.buffer) { info in
            guard let buffer = info.buffer else { return .ok }
            return live.admit(runningTime: info.runningTime(buffer.pts)) ? .ok : .drop
        }
        AppSink.onNewSample(sink) { sample in
            guard let bytes = sample.copyBytes() else { return }
            let now = pipeline.runningTimeNow?.nanoseconds ?? 0
            let captured = sample.runningTime?.nanoseconds ?? now
            live.receive(jpeg: bytes, ageNanoseconds: now > captured ? now - captured : 0)
        }
    }
}
