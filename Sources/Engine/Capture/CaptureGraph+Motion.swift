import Foundation
import GStreamerKit
import ApplianceBase

extension CaptureGraph {
    /// raw tee ! queue (leaky, 1) [probe: at most `[motion] fps`] ! videoscale ! videoconvert ! GRAY8 at the motion
    /// size ! appsink (1 buffer, drops). The probe drops before the scaler, so the frames not looked at cost nothing;
    /// after the camera selector, it follows the active camera and a switch.
    static func addMotionBranch(to pipeline: Pipeline, after rawTee: Element, tap: MotionTap) throws {
        let queue = try leakyQueue("motion-queue", buffers: 1)
        let scale = try Element.make("videoscale", name: "motion-scale")
        let convert = try Element.make("videoconvert", name: "motion-convert")
        let caps = try Element.make("capsfilter", name: "motion-caps")
        caps.set("caps", try Caps("video/x-raw,format=GRAY8,width=\(tap.width),height=\(tap.height),pixel-aspect-ratio=1/1"))
        let sink = try latestFrameSink("motion-sink")
        try pipeline.add([queue, scale, convert, caps, sink])
        try Element.link([rawTee, queue, scale, convert, caps, sink])
        keepAllocationQueriesOut(of: queue)
        queue.staticPad("sink")?.addProbe(.buffer) { info in
            guard let buffer = info.buffer else { return .ok }
            return tap.admit(runningTime: info.runningTime(buffer.pts)) ? .ok : .drop
        }
        AppSink.onNewSample(sink) { sample in
            guard let bytes = sample.copyBytes() else { return }
            tap.receive(pixels: bytes, capturedAt: Date().addingTimeInterval(-Double(age(of: sample, in: pipeline)) / 1e9))
        }
    }
}
