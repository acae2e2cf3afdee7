import GStreamerKit

extension CaptureGraph {
    /// raw tee ! queue (leaky, 1) [probe: one frame per scrub interval] ! videoscale ! capsfilter (scrub width) !
    /// jpegenc ! appsink. The probe drops before the scaler: between two previews nothing is scaled or encoded.
    static func addScrubBranch(to pipeline: Pipeline, after rawTee: Element, scrub: ScrubFrames, video: ApplianceConfig.Video) throws {
        let queue = try leakyQueue("scrub-queue", buffers: 1)
        let scale = try Element.make("videoscale", name: "scrub-scale")
        let caps = try Element.make("capsfilter", name: "scrub-caps")
        let height = max(2, (scrub.width * video.height / max(1, video.width) + 1) / 2 * 2)
        caps.set("caps", try Caps("video/x-raw,width=\(scrub.width),height=\(height),pixel-aspect-ratio=1/1"))
        let encoder = try Element.make("jpegenc", name: "scrub-jpeg")
        encoder.set("quality", int: 60)
        let sink = try latestFrameSink("scrub-sink")
        try pipeline.add([queue, scale, caps, encoder, sink])
        try Element.link([rawTee, queue, scale, caps, encoder, sink])
        keepAllocationQueriesOut(of: queue)
        queue.staticPad("sink")?.addProbe(.buffer) { info in
            guard let buffer = info.buffer else { return .ok }
            return scrub.admit(runningTime: info.runningTime(buffer.pts)) ? .ok : .drop
        }
        AppSink.onNewSample(sink) { sample in
            guard let bytes = sample.copyBytes(), let time = sample.runningTime?.nanoseconds else { return }
            scrub.receive(jpeg: bytes, runningTime: time)
        }
    }
}
