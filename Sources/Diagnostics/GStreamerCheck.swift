import Engine
import Foundation
import GStreamerKit
import Settings

/// Check: GStreamer's version, the pipelines/ folder the fragments come from, and every element the live graph
/// makes by name (the fragments' own elements are checked by the camera and encoder checks).
enum GStreamerCheck {
    static let name = "gstreamer"

    static func elementsNeeded(by config: ApplianceConfig) -> [String] {
        var elements = [
            "input-selector", "tee", "queue", "capsfilter", "capssetter", "videoconvert", "videoscale", "videorate",
            "videotestsrc", "appsink", "h264parse", "mp4mux", "qtdemux",
        ]
        if config.audio.source != "none" {
            elements += ["audioconvert", "audioresample", "level", "aacparse", "audiotestsrc"]
        }
        if config.cameras.contains(where: { $0.mirror || $0.rotate != 0 }) { elements.append("videoflip") }
        return elements
    }

    static func run(_ config: ApplianceConfig, fragments: Result<FragmentLibrary, any Error>) -> DoctorCheck {
        GStreamer.initialize()
        let missing = elementsNeeded(by: config).filter { !GStreamer.hasElement($0) }
        if !missing.isEmpty {
            let packages = Set(missing.map { PluginPackages.debian[$0] ?? "the plugin providing \($0)" }).sorted()
            return .fail(
                name, "GStreamer \(GStreamer.version) lacks \(missing.joined(separator: ", "))",
                fix: "install \(packages.joined(separator: " "))")
        }
        switch fragments {
        case .success(let library):
            return .pass(
                name,
                """
                GStreamer \(GStreamer.version), the graph's elements are installed, fragments from \
                \(library.directory)
                """
            )
        case .failure(let error):
            return .fail(
                name, "\(error)",
                fix:
                    """
                    set pipelines_dir in the config or APPLIANCE_PIPELINES to the folder holding encoders/, \
                    sources/, previews/
                    """
            )
        }
    }
}
