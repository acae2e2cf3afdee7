import ApplianceBase
import GStreamerKit
import Logging
import Settings

extension CaptureGraph {
    /// raw tee ! queue (leaky, 2) [! textoverlay] ! the preview fragment. Leaky, so it never stalls the graph. The
    /// overlay (REC, elapsed time, camera) sits behind the leaky queue, so it is drawn only on frames the display
    /// takes, and never reaches the file. Returns the overlay, if there is one.
    static func addPreview(
        kind: String, config: ApplianceConfig, fragments: FragmentLibrary, to pipeline: Pipeline,
        after rawTee: Element, logger: Logger
    ) throws -> Element? {
        guard kind != "none" else { return nil }
        let queue = try leakyQueue("preview-queue", buffers: 2)
        let sink = try fragments.makeBin("previews", kind, ["kms_card": KMSCard.sinkOptions()], binName: "preview")
        var overlay: Element?
        if config.preview.overlay {
            do {
                overlay = try makePreviewOverlay(video: config.video)
            } catch {
                logger.warning("preview overlay off: \(error); \(PluginPackages.fix(forMissing: "textoverlay"))")
            }
        }
        let chain = [queue] + (overlay.map { [$0] } ?? []) + [sink]
        try pipeline.add(chain)
        try Element.link([rawTee] + chain)
        keepAllocationQueriesOut(of: queue)
        return overlay
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

    /// raw tee ! queue (leaky, 1) ! appsink: the latest raw frame for thumbnails and snapshots. The tap needs every
    /// frame only while a thumbnail is due; otherwise one in ten keeps snapshots fresh.
    static func addFrameTap(_ tap: FrameTap, to pipeline: Pipeline, after rawTee: Element) throws {
        let queue = try leakyQueue("tap-queue", buffers: 1)
        let appsink = try Element.make("appsink", name: "frame-tap")
        appsink.set("sync", false)
        appsink.set("max-buffers", uint: 1)
        appsink.set("drop", true)
        appsink.set("enable-last-sample", false)
        try pipeline.add([queue, appsink])
        try Element.link([rawTee, queue, appsink])
        keepAllocationQueriesOut(of: queue)
        let count = Locked(0)
        queue.staticPad("sink")?.addProbe(.buffer) { _ in
            if tap.wantsEveryFrame { return .ok }
            return count.withLock { n in
                defer { n += 1 }
                return n % 10 == 0
            } ? .ok : .drop
        }
        AppSink.onNewSample(appsink) { sample in tap.receive(sample) }
    }
}
