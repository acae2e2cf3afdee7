import ApplianceBase
import Foundation
import GStreamerKit
import Settings

extension CaptureGraph {
    /// Motion's branch when `[motion] enabled`, and the objects' when `[objects]` is too (they look where motion is).
    static func addDetectionBranches(config: ApplianceConfig, to pipeline: Pipeline, after rawTee: Element) throws
        -> (MotionTap?, ObjectTap?)
    {
        let v = config.video
        let motion =
            config.motion.enabled
            ? MotionTap(
                fps: min(config.motion.fps, v.framerate), width: config.motion.width,
                height: config.motion.height(videoWidth: v.width, videoHeight: v.height)) : nil
        if let motion { try addMotionBranch(to: pipeline, after: rawTee, tap: motion) }
        let objects = try objectsTap(config.objects, video: v, motion: motion)
        if let objects { try addObjectsBranch(to: pipeline, after: rawTee, tap: objects) }
        return (motion, objects)
    }

    /// The objects tap when `[objects] enabled` (with motion, which it follows).
    static func objectsTap(_ objects: ApplianceConfig.Objects, video v: ApplianceConfig.Video, motion: MotionTap?)
        throws -> ObjectTap?
    {
        guard objects.enabled, let motion else { return nil }
        let size = objects.size(videoWidth: v.width, videoHeight: v.height)
        // A model sees colour; the built-in HOG detector gray.
        return ObjectTap(
            fps: min(objects.fps, v.framerate), width: size.width, height: size.height,
            channels: objects.model.isEmpty ? 1 : 3, motion: motion, budget: objects.cpuBudget)
    }

    /// raw tee ! queue (leaky, 1) [probe: only with motion, at most `[objects] fps`, not while a run goes on] !
    /// videoscale ! videoconvert ! GRAY8 (BGR for a model) at the objects size ! appsink (1 buffer, drops). Frames
    /// without motion are
    /// dropped before the converter: with no motion the branch costs a probe call a frame.
    static func addObjectsBranch(to pipeline: Pipeline, after rawTee: Element, tap: ObjectTap) throws {
        let format = tap.channels == 3 ? "BGR" : "GRAY8"
        try addSampledBranch(
            "objects", to: pipeline, after: rawTee,
            caps: "video/x-raw,format=\(format),width=\(tap.width),height=\(tap.height),pixel-aspect-ratio=1/1",
            admit: tap.admit, receive: tap.receive)
    }
}
