import ApplianceBase
import Foundation
import GStreamerKit

extension CaptureGraph {
    /// raw tee ! queue (leaky, 1) [probe: at most `[motion] fps`] ! videoscale ! videoconvert ! GRAY8 at the motion
    /// size ! appsink (1 buffer, drops). The probe drops before the scaler, so the frames not looked at cost nothing;
    /// after the camera selector, it follows the active camera and a switch.
    static func addMotionBranch(to pipeline: Pipeline, after rawTee: Element, tap: MotionTap) throws {
        try addSampledBranch(
            "motion", to: pipeline, after: rawTee,
            caps: "video/x-raw,format=GRAY8,width=\(tap.width),height=\(tap.height),pixel-aspect-ratio=1/1",
            admit: tap.admit, receive: tap.receive)
    }

    /// A branch that hands some frames to a service: raw tee ! queue (leaky, 1) [probe: `admit` by running time] !
    /// videoscale ! videoconvert ! `caps` ! appsink (1 buffer, drops) → `receive` with the frame's bytes and when it
    /// was captured. Frames `admit` refuses are dropped before the scaler: they cost a probe call. Elements are named
    /// `<name>-queue`, `<name>-scale`, … (the motion and objects branches).
    static func addSampledBranch(
        _ name: String, to pipeline: Pipeline, after rawTee: Element, caps capsText: String,
        admit: @escaping @Sendable (UInt64?) -> Bool,
        receive: @escaping @Sendable ([UInt8], Date) -> Void
    ) throws {
        let queue = try leakyQueue("\(name)-queue", buffers: 1)
        let scale = try Element.make("videoscale", name: "\(name)-scale")
        let convert = try Element.make("videoconvert", name: "\(name)-convert")
        let caps = try Element.make("capsfilter", name: "\(name)-caps")
        caps.set("caps", try Caps(capsText))
        let sink = try latestFrameSink("\(name)-sink")
        try pipeline.add([queue, scale, convert, caps, sink])
        try Element.link([rawTee, queue, scale, convert, caps, sink])
        keepAllocationQueriesOut(of: queue)
        queue.staticPad("sink")?.addProbe(.buffer) { info in
            guard let buffer = info.buffer else { return .ok }
            return admit(info.runningTime(buffer.pts)) ? .ok : .drop
        }
        AppSink.onNewSample(sink) { sample in
            guard let bytes = sample.copyBytes() else { return }
            receive(bytes, Date().addingTimeInterval(-Double(age(of: sample, in: pipeline)) / 1e9))
        }
    }
}
