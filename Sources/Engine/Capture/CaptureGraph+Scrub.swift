import ApplianceBase
import GStreamerKit
import Settings

extension CaptureGraph {
    /// The scrubbing previews' branch when `[thumbnail] scrub_every_s` asks for one (nil: none).
    static func addScrubBranch(config: ApplianceConfig, to pipeline: Pipeline, after rawTee: Element) throws
        -> ScrubFrames?
    {
        let thumbnail = config.thumbnail
        guard thumbnail.scrubEveryS > 0 else { return nil }
        let scrub = ScrubFrames(intervalS: thumbnail.scrubEveryS, width: thumbnail.scrubWidth)
        try addScrubBranch(to: pipeline, after: rawTee, scrub: scrub, video: config.video)
        return scrub
    }

    /// The scrubbing previews' branch (`addJPEGBranch`): one frame per scrub interval, scaled to the scrub width.
    static func addScrubBranch(
        to pipeline: Pipeline, after rawTee: Element, scrub: ScrubFrames, video: ApplianceConfig.Video
    ) throws {
        let height = max(2, (scrub.width * video.height / max(1, video.width) + 1) / 2 * 2)
        try addJPEGBranch(
            "scrub", to: pipeline, after: rawTee, width: scrub.width, height: height, quality: 60,
            admit: { scrub.admit(runningTime: $0) },
            receive: { sample in
                guard let bytes = sample.copyBytes(), let time = sample.runningTime?.nanoseconds else { return }
                scrub.receive(jpeg: bytes, runningTime: time)
            })
    }
}
