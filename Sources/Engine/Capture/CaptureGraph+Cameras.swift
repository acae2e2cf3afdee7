import ApplianceBase
import Foundation
import GStreamerKit
import Logging
import Settings

extension CaptureGraph {
    /// The black live filler, a camera slot of its own: it runs with the pipeline while it starts (video must flow
    /// for the pipeline to reach PLAYING), then only while it is shown (see CameraSwitcher.showFiller).
    /// `sparse` (a channel that stores its camera's stream as sent): the filler's pictures feed no encoder, only
    /// what looks at pictures (thumbnails, scrubbing, a preview, detection), so one a second is enough.
    static func makeFiller(
        fragments: FragmentLibrary, rawCaps: Caps, video: ApplianceConfig.Video, pipeline: Pipeline,
        selector: Element, sparse: Bool = false
    ) throws -> CameraSlot {
        var fillerConfig = ApplianceConfig.Camera()
        fillerConfig.name = "filler"
        // One black picture made once and repeated by reference at the output's rate: a videotestsrc filling a new
        // 1280x720 frame 30 times a second took 0.95 % of a core in every channel, shown or not (imagefreeze: 0.2 %).
        fillerConfig.pipeline = "videotestsrc num-buffers=1 pattern=black ! \(video.rawCaps) ! imagefreeze is-live=true"
        if sparse {
            // One a second, labelled with the channel's rate so that it joins the other slots' caps; the slot's
            // rate keeper only drops (`repeatsFrames` false). 0.2–0.44 % of a core at 30 a second, shown or not.
            fillerConfig.pipeline +=
                " ! capsfilter caps=video/x-raw,framerate=1/1"
                + " ! capssetter caps=\"video/x-raw,framerate=(fraction)\(video.framerate)/1\""
        }
        // Each picture is stamped one frame interval before it is pushed, as a live capture source stamps a frame at
        // its exposure's start and pushes it at its end (videotestsrc is-live=true did): a camera that comes while
        // the filler is shown, its first frame up to one interval behind the clock, still finds that frame's slot
        // free and is recorded from it (LateCameraTests; pushed on time, the filler took the slot and the handover
        // dropped the camera's first frame).
        return try CameraSlot(
            config: fillerConfig, kind: "pipeline", initialState: .standby, fragments: fragments,
            rawCaps: rawCaps, video: video, pipeline: pipeline, selector: selector, repeatsFrames: !sparse,
            stampLead: 1_000_000_000 / UInt64(video.framerate), onStreamEnd: { _ in })
    }

    /// The configured cameras, each in its own bin normalised to the output caps, linked to the selector. A camera
    /// whose device is missing starts in `.missing` (the switcher polls for it).
    static func makeCameras(
        config: ApplianceConfig, fragments: FragmentLibrary, rawCaps: Caps, pipeline: Pipeline,
        selector: Element, logger: Logger, asSent: AsSentOutput?,
        onStreamEnd: @escaping @Sendable (String) -> Void
    ) throws -> [CameraSlot] {
        try config.cameras.map { camera in
            let (kind, missing) = try SourceResolver.cameraKind(camera, logger: logger)
            return try CameraSlot(
                config: camera, kind: kind, initialState: missing.map { .missing($0) } ?? .standby,
                fragments: fragments,
                rawCaps: rawCaps, video: config.video, pipeline: pipeline, selector: selector, asSent: asSent,
                onStreamEnd: onStreamEnd)
        }
    }

    /// Frames leaving the selector are snapped onto one time grid; a frame whose slot is taken is dropped. Each
    /// camera's segment maps its timestamps into the pipeline's running time (cameras started later carry a pad
    /// offset). Downstream sees only the first segment, an identity one, and every frame's PTS is rewritten to its
    /// running time snapped to the grid: PTS == running time from here on, whichever camera is active.
    static func snapToGrid(_ pad: Pad?, flow: VideoFlowMonitor, firstFrame: OneShot<Bool>) {
        let lastFrame = Locked<BufferRef?>(nil)
        let sentSegment = Locked(false)
        // The thread pushing gap-filling copies: their PTS is already running time on the grid. Converting them
        // through the active camera's segment (which carries its start offset) would push them into the future,
        // open another gap and recurse without end (a stack overflow, found with two always-on cameras).
        let fillingThread = Locked<pthread_t?>(nil)
        pad?.addProbe([.buffer, .eventDownstream]) { info in
            if info.event == .eos { return .drop }  // a source's end never ends the graph
            if info.event == .segment {
                return sentSegment.withLock { sent in
                    defer { sent = true }
                    return sent
                } ? .drop : .ok
            }
            guard let buffer = info.buffer else { return .ok }
            let isCopy = fillingThread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
            let time = buffer.pts == .max ? .max : isCopy ? buffer.pts : info.runningTime(buffer.pts)
            // Hold the last frame over a short gap; the copies come back through this probe first, in order.
            if !isCopy, let gap = flow.gapBefore(time: time), let previous = lastFrame.withLock({ $0 }) {
                fillingThread.withLock { $0 = pthread_self() }
                info.pushCopies(of: previous, start: gap.start, step: flow.frameInterval, count: gap.count)
                fillingThread.withLock { $0 = nil }
                flow.noteFilled(gap.count)
            }
            guard let pts = flow.output(time: time) else { return .drop }
            if pts != buffer.pts { info.setBufferTiming(pts: pts, duration: flow.frameInterval) }
            if let final = info.buffer { lastFrame.withLock { $0 = final.retain() } }
            if !firstFrame.isFired { firstFrame.fire(true) }
            return .ok
        }
    }
}
