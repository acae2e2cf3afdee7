import Foundation
import GStreamerKit
import Settings

/// A V4L2 camera's source bin in an explicit mode: reads the modes the device offers (v4l2src at READY answers a
/// caps query with them), chooses one (`ModeChoice`), and fills sources/video-v4l2.gst (raw) or
/// video-v4l2-mjpeg.gst (MJPEG and its decoder). The live graph and `appliance doctor` both build it from here.
package enum V4L2Source {
    struct ProbeError: Error, CustomStringConvertible {
        package var description: String
    }

    /// The modes `device` offers now. Opens the device briefly: call it while the camera is not streaming.
    package static func probe(_ device: String) throws -> [CameraMode] {
        let source = try Element.make("v4l2src", name: "mode-probe")
        source.set("device", device)
        do {
            try source.setState(.ready)
        } catch {
            _ = try? source.setState(.null)
            throw ProbeError(description: "cannot open \(device) to read its modes")
        }
        defer { _ = try? source.setState(.null) }
        let caps = source.staticPad("src")?.queryCaps()?.description ?? ""
        let modes = CameraMode.parse(caps)
        guard !modes.isEmpty else {
            throw ProbeError(description: "\(device) lists no capture mode (caps: \(caps.isEmpty ? "none" : caps))")
        }
        return modes
    }

    /// The hardware JPEG decoder where the board has one, else libjpeg's.
    package static var jpegDecoder: String? {
        if GStreamer.hasElement("v4l2jpegdec") { return "v4l2jpegdec" }
        return GStreamer.hasElement("jpegdec") ? "jpegdec" : nil
    }

    /// Reads `camera`'s modes and chooses one for `video` (or the configured `mode`).
    package static func choose(for camera: ApplianceConfig.Camera, video: ApplianceConfig.Video) throws -> ModeChoice {
        let modes = try probe(camera.device)
        do {
            return try ModeChoice.choose(
                from: modes, width: video.width, height: video.height, fps: Double(video.framerate),
                request: camera.mode, canDecodeJPEG: jpegDecoder != nil)
        } catch {
            throw ProbeError(description: "\(camera.device) \(error)")
        }
    }

    /// The source bin for `choice`.
    package static func makeBin(
        _ camera: ApplianceConfig.Camera, choice: ModeChoice, video: ApplianceConfig.Video,
        fragments: FragmentLibrary
    ) throws -> Bin {
        try fragments.makeBin(
            "sources", choice.mode.isRaw ? "video-v4l2" : "video-v4l2-mjpeg",
            FragmentLibrary.videoSourceValues(camera, video: video, caps: choice.caps), binName: "source")
    }
}
