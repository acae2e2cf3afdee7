import Engine
import Foundation
import GStreamerKit
import Settings
import SystemCalls

/// Check 2, one line per `[[camera]]`: a V4L2 camera's node exists, is a character device this user can open
/// read-write, which modes it offers, the mode the daemon would choose, and that the camera delivers frames in it
/// through the daemon's own source fragment (a warning when the mode falls short of the configured rate or size);
/// test and pipeline sources say what they are, and every camera's source fragment must parse as the daemon's.
enum CameraCheck {
    static func name(_ camera: ApplianceConfig.Camera) -> String { "camera \(camera.name)" }

    /// Whether this camera needs the device monitor's list (a V4L2 node is there to describe).
    static func wantsDeviceList(_ camera: ApplianceConfig.Camera) -> Bool {
        ["auto", "v4l2"].contains(camera.source) && FileManager.default.fileExists(atPath: camera.device)
    }

    static func run(
        _ camera: ApplianceConfig.Camera, video: ApplianceConfig.Video,
        fragments: Result<FragmentLibrary, any Error>, devices: [CaptureDevice]?
    ) -> DoctorCheck {
        let name = name(camera)
        switch camera.source {
        case "pipeline":
            do {
                _ = try FragmentLibrary.parse(
                    camera.pipeline, label: "camera '\(camera.name)' pipeline", binName: "source")
                return .pass(name, "pipeline source parses: \(camera.pipeline)")
            } catch {
                return .fail(
                    name, "\(error)",
                    fix: fixForParseError("\(error)", otherwise: "correct [[camera]] pipeline (gst-launch-1.0 syntax)"))
            }
        case "rtsp":
            return NetworkCameraCheck.run(camera)
        case "test":
            if let failure = sourceFragmentFailure(camera, kind: "test", video: video, fragments: fragments) {
                return failure
            }
            return .pass(name, "live test pattern '\(camera.pattern)' (videotestsrc), as configured")
        default:
            return v4l2(camera, video: video, fragments: fragments, devices: devices)
        }
    }

    private static func v4l2(
        _ camera: ApplianceConfig.Camera, video: ApplianceConfig.Video,
        fragments: Result<FragmentLibrary, any Error>, devices: [CaptureDevice]?
    ) -> DoctorCheck {
        let name = name(camera)
        let device = camera.device
        if let problem = nodeProblem(device, name: name, isAuto: camera.source == "auto") { return problem }

        // The daemon's own way in: read the modes, choose one, and start the camera in it for a few frames.
        let label =
            devices.flatMap { list in
                list.first { $0.deviceClass.hasPrefix("Video/Source") && $0.path.map(realPath) == realPath(device) }?
                    .name
            }.map { " (\($0))" } ?? ""
        let modes: [CameraMode]
        do {
            modes = try V4L2Source.probe(device)
        } catch {
            return .fail(
                name, "\(error)", fix: "set [[camera]] device to the camera's capture node (v4l2-ctl --list-devices)")
        }
        let described = "\(device)\(label): " + CameraMode.summary(modes)
        let choice: ModeChoice
        do {
            choice = try ModeChoice.choose(
                from: modes, width: video.width, height: video.height, fps: Double(video.framerate),
                request: camera.mode, canDecodeJPEG: V4L2Source.jpegDecoder != nil)
        } catch {
            return .fail(
                name, "\(described); \(device) \(error)",
                fix: camera.mode == nil
                    ? PluginPackages.fix(forMissing: "jpegdec")
                    : "set [[camera]] mode to one the camera offers, or remove it")
        }
        guard case .success(let library) = fragments else {
            return .warn(
                name, "\(described); chosen \(choice.summary), not tried (no pipelines folder)",
                fix: "see the gstreamer check")
        }
        do {
            try CameraTrial.run(camera, choice: choice, video: video, library: library)
        } catch {
            return .fail(
                name, "\(described); chosen \(choice.summary), but the camera delivers no picture in it: \(error)",
                fix: "check dmesg and the camera's connection, or set [[camera]] mode to another mode it offers")
        }
        let chosen = "chosen \(choice.summary) (\(choice.reason))"
        guard choice.reachesRate && choice.coversSize else {
            let best =
                CameraMode.bestFps(modes, width: video.width, height: video.height).map(ModeRequest.fpsText) ?? "?"
            return .warn(
                name, "\(described); \(chosen)",
                fix: choice.reachesRate
                    ? "lower [video] width/height to a size the camera offers"
                    : "lower [video] framerate to \(best), or the size to a mode with more frames")
        }
        return .pass(name, "\(described); \(chosen)" + stableNameHint(device))
    }

    /// Why `device` cannot be a camera here (absent, no v4l2src, not a character device, not openable read-write);
    /// nil when it can.
    private static func nodeProblem(_ device: String, name: String, isAuto: Bool) -> DoctorCheck? {
        var info = stat()
        guard stat(device, &info) == 0 else {
            if isAuto {
                return .warn(
                    name, "no camera at \(device); the live test pattern will be used",
                    fix: "connect a camera or set [[camera]] source (and device)")
            }
            return .fail(
                name, "no camera at \(device): it stays missing until the device appears",
                fix: "connect the camera, or set [[camera]] device to its node (ls /dev/v4l/by-id/)")
        }
        guard GStreamer.hasElement("v4l2src") else {
            let detail =
                "\(device) is there but GStreamer has no v4l2src"
                + (isAuto ? "; the live test pattern will be used" : "")
            return DoctorCheck(
                name: name, status: isAuto ? .warn : .fail, detail: detail,
                fix: PluginPackages.fix(forMissing: "v4l2src"))
        }
        guard info.st_mode & S_IFMT == S_IFCHR else {
            return .fail(
                name, "\(device) is not a character device (a V4L2 camera node is one)",
                fix: "set [[camera]] device to the camera's /dev/videoN (v4l2-ctl --list-devices)")
        }
        do {
            close(try SystemCall.run("open \(device)") { open(device, O_RDWR | O_NONBLOCK | O_CLOEXEC) })
        } catch {
            let owner = DeviceNode(path: device, info: info)
            return .fail(
                name, "cannot open \(device) read-write: \(error.reason) (\(owner.ownership))",
                fix: error.code == EACCES
                    ? "add the user to group \(owner.group) (usermod -aG \(owner.group) USER), then log in again"
                    : "check the camera's connection and dmesg")
        }
        return nil
    }

    /// For a `/dev/videoN` device: the udev link that keeps naming it after a replug (a camera unplugged and
    /// plugged back may come back as another videoN, and the configured one would stay missing).
    static func stableNameHint(_ device: String) -> String {
        guard device.range(of: #"^/dev/video[0-9]+$"#, options: .regularExpression) != nil else { return "" }
        let real = realPath(device)
        for folder in ["/dev/v4l/by-id", "/dev/v4l/by-path"] {
            let links = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
            if let link = links.first(where: { realPath("\(folder)/\($0)") == real }) {
                return
                    """
                    ; \(device) may be renumbered when the camera is replugged: device = \"\(folder)/\(link)\" \
                    names it for good
                    """
            }
        }
        return ""
    }

    /// The source fragment (sources/video-<kind>.gst) filled and parsed as the daemon's camera bin does it.
    private static func sourceFragmentFailure(
        _ camera: ApplianceConfig.Camera, kind: String, video: ApplianceConfig.Video,
        fragments: Result<FragmentLibrary, any Error>
    ) -> DoctorCheck? {
        guard case .success(let library) = fragments else { return nil }  // the gstreamer check reports the folder
        do {
            _ = try library.makeBin(
                "sources", "video-\(kind)",
                FragmentLibrary.videoSourceValues(camera, video: video, caps: "video/x-raw"),
                binName: "source")
            return nil
        } catch {
            return .fail(
                name(camera), "\(error)",
                fix: fixForParseError("\(error)", otherwise: "correct \(library.directory)/sources/video-\(kind).gst"))
        }
    }

    static func fixForParseError(_ message: String, otherwise: String) -> String {
        PluginPackages.missingElement(in: message).map(PluginPackages.fix(forMissing:)) ?? otherwise
    }

    static func realPath(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }
}
