import Foundation
import GStreamerKit
import Logging
import Settings

/// Decides what each `auto` source becomes on this machine, and checks explicit devices exist.
public enum SourceResolver {
    public struct SourceError: Error, CustomStringConvertible {
        public var description: String
    }

    /// The concrete kind for a camera ("v4l2", "test" or "pipeline") and, for a V4L2 camera whose device is not
    /// there, why it is missing (the camera starts as `missing`; hot-plug brings it in later).
    public static func cameraKind(_ camera: ApplianceConfig.Camera, logger: Logger) throws -> (
        kind: String, missing: String?
    ) {
        switch camera.source {
        case "v4l2":
            guard GStreamer.hasElement("v4l2src") else {
                throw SourceError(
                    description: "camera '\(camera.name)': v4l2src is not installed (gstreamer1.0-plugins-good)")
            }
            guard FileManager.default.fileExists(atPath: camera.device) else {
                let reason = "device \(camera.device) not present"
                logger.warning("camera '\(camera.name)': \(reason); it is listed as missing until the device appears")
                return ("v4l2", reason)
            }
            return ("v4l2", nil)
        case "auto":
            if FileManager.default.fileExists(atPath: camera.device), GStreamer.hasElement("v4l2src") {
                return ("v4l2", nil)
            }
            logger.warning("camera '\(camera.name)': \(camera.device) not present, using a live test pattern")
            return ("test", nil)
        default:
            return (camera.source, nil)
        }
    }

    /// The concrete kind for the microphone: "alsa", "test" or "none".
    public static func audioKind(_ audio: ApplianceConfig.Audio, logger: Logger) throws -> String {
        switch audio.source {
        case "alsa":
            guard hasCaptureCard() else {
                throw SourceError(description: "audio: no ALSA capture device (/dev/snd/pcmC*c)")
            }
            return "alsa"
        case "auto":
            if hasCaptureCard(), GStreamer.hasElement("alsasrc") { return "alsa" }
            logger.warning("audio: no ALSA capture device present, using a live test tone")
            return "test"
        default:
            return audio.source
        }
    }

    /// The concrete preview sink: "none", "kms", "wayland" or "gl".
    public static func previewKind(_ preview: ApplianceConfig.Preview) -> String {
        guard preview.sink == "auto" else { return preview.sink }
        let env = ProcessInfo.processInfo.environment
        if let wayland = env["WAYLAND_DISPLAY"], !wayland.isEmpty { return "wayland" }
        if let display = env["DISPLAY"], !display.isEmpty { return "gl" }
        return "none"
    }

    package static func hasCaptureCard() -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/snd")) ?? []
        return entries.contains { $0.hasPrefix("pcmC") && $0.hasSuffix("c") }
    }
}
