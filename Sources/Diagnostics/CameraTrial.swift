import ApplianceBase
import Engine
import Foundation
import GStreamerKit
import Settings

/// Starts a V4L2 camera in its chosen mode through the daemon's source fragment and normalising chain, until a
/// few frames have come out in the graph's caps. A mode the driver refuses, or a fragment that does not link,
/// fails here instead of leaving the daemon's recordings on the black filler. Blocks: run it off the pool.
enum CameraTrial {
    static let frames = 3
    static let timeout = ClockTime(seconds: 8)

    static func run(
        _ camera: ApplianceConfig.Camera, choice: ModeChoice, video: ApplianceConfig.Video,
        library: FragmentLibrary
    ) throws {
        let pipeline = Pipeline(name: "doctor-camera")
        let source = try V4L2Source.makeBin(camera, choice: choice, video: video, fragments: library)
        let filter = try Element.make("capsfilter", name: "raw-caps")
        filter.set("caps", try Caps(video.rawCaps))
        let count = try Element.make("identity", name: "count")
        count.set("eos-after", int: frames)
        let sink = try Element.make("fakesink", name: "sink")
        sink.set("sync", false)
        let chain = [
            source, try Element.make("videoconvert"), try Element.make("videoscale"), try Element.make("videorate"),
            filter, count, sink,
        ]
        try pipeline.add(chain)
        try Element.link(chain)
        try pipeline.runToEnd(timeout: timeout)
    }
}
