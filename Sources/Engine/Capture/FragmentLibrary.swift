import ApplianceBase
import Foundation
import GStreamerKit
import Settings

/// Finds the gst-launch fragments in pipelines/ and fills their `${placeholders}`.
public struct FragmentLibrary: Sendable {
    public let directory: String

    /// Error for a fragment that is missing, uses an unknown placeholder or does not parse.
    public struct FragmentError: Error, CustomStringConvertible {
        public var fragment: String
        public var message: String
        public var description: String { "pipeline fragment \(fragment): \(message)" }
    }

    public init(directory: String) { self.directory = directory }

    /// Locates the fragments folder: config, $APPLIANCE_PIPELINES, ../share/appliance/pipelines beside the binary,
    /// then the nearest pipelines/ above the binary or the working directory.
    public static func locate(configured: String) throws -> FragmentLibrary {
        if !configured.isEmpty {
            guard FileManager.default.fileExists(atPath: configured + "/encoders") else {
                throw FragmentError(fragment: configured, message: "pipelines_dir has no encoders/ folder")
            }
            return FragmentLibrary(directory: configured)
        }
        var candidates: [String] = []
        if let env = ProcessInfo.processInfo.environment["APPLIANCE_PIPELINES"], !env.isEmpty { candidates.append(env) }
        let executable = URL(fileURLWithPath: CommandLine.arguments.first ?? "").resolvingSymlinksInPath()
            .deletingLastPathComponent()
        candidates.append(executable.appendingPathComponent("../share/appliance/pipelines").standardized.path)
        for start in [executable, URL(fileURLWithPath: FileManager.default.currentDirectoryPath)] {
            var dir = start.standardized
            for _ in 0..<8 {
                candidates.append(dir.appendingPathComponent("pipelines").path)
                dir.deleteLastPathComponent()
            }
        }
        for candidate in candidates where FileManager.default.fileExists(atPath: candidate + "/encoders") {
            return FragmentLibrary(directory: candidate)
        }
        throw FragmentError(
            fragment: "pipelines/", message: "folder not found (set pipelines_dir or APPLIANCE_PIPELINES)")
    }

    /// Reads `role/name.gst` and substitutes placeholders.
    public func load(_ role: String, _ name: String, _ values: [String: String]) throws -> (text: String, label: String)
    {
        let label = "\(role)/\(name).gst"
        let path = "\(directory)/\(label)"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            let available =
                (try? FileManager.default.contentsOfDirectory(atPath: "\(directory)/\(role)"))?
                .filter { $0.hasSuffix(".gst") }.map { String($0.dropLast(4)) }.sorted().joined(separator: ", ") ?? ""
            throw FragmentError(fragment: label, message: "not found in \(directory) (available: \(available))")
        }
        return (try Self.substitute(stripComments(text), values, label: label), label)
    }

    /// Fills `${name}`; an unknown name is an error naming the fragment.
    public static func substitute(_ text: String, _ values: [String: String], label: String) throws -> String {
        var result = ""
        var rest = Substring(text)
        while let start = rest.range(of: "${") {
            result += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else {
                throw FragmentError(fragment: label, message: "unterminated ${ placeholder")
            }
            let key = String(rest[start.upperBound..<end])
            guard let value = values[key] else {
                throw FragmentError(
                    fragment: label,
                    message: "unknown placeholder ${\(key)} (known: \(values.keys.sorted().joined(separator: ", ")))")
            }
            result += value
            rest = rest[rest.index(after: end)...]
        }
        return (result + rest).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func stripComments(_ text: String) -> String {
        text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }.joined(
            separator: "\n")
    }

    /// Parses a fragment into a bin, naming the fragment in any error.
    public func makeBin(_ role: String, _ name: String, _ values: [String: String], binName: String) throws -> Bin {
        let (text, label) = try load(role, name, values)
        return try Self.parse(text, label: label, binName: binName)
    }

    /// Parses fragment text (also used for `[[camera]] pipeline = "…"`).
    ///
    /// GStreamer's parser makes a capsfilter only *between* two elements, so a description that ends in caps —
    /// `libcamerasrc ! video/x-raw,width=1280,height=720`, the usual way to pin a camera's mode — fails with
    /// `no element "video"`. Such a description is a complete source for gst-launch once something follows it,
    /// so it is parsed again ending in an `identity` (a pass-through): the caps then become the capsfilter they mean.
    public static func parse(_ text: String, label: String, binName: String, ghostUnlinkedPads: Bool = true) throws
        -> Bin
    {
        do {
            return try Bin.parse(text, name: binName, label: label, ghostUnlinkedPads: ghostUnlinkedPads)
        } catch let error as GStreamerError {
            if error.message.contains("no element"),
                let completed = try? Bin.parse(
                    text + " ! identity", name: binName, label: label, ghostUnlinkedPads: ghostUnlinkedPads)
            {
                return completed
            }
            throw FragmentError(fragment: label, message: "\(error.message) — in: \(text)")
        }
    }
}

extension FragmentLibrary {
    /// The placeholders of the video encoder fragment (encoders/<video.encoder>.gst). The live graph and
    /// `appliance doctor` both fill it from here, so doctor's trial encode runs what the daemon runs.
    public static func videoEncoderValues(_ v: ApplianceConfig.Video) -> [String: String] {
        let keyframeFrames = max(1, Int((v.keyframeIntervalS * Double(v.framerate)).rounded()))
        return [
            "bitrate_kbps": "\(v.bitrateKbps)", "bitrate_bps": "\(v.bitrateKbps * 1000)",
            "keyframe_frames": "\(keyframeFrames)", "speed_preset": v.speedPreset, "framerate": "\(v.framerate)",
        ]
    }

    /// The placeholders of the video source fragments (sources/video-*.gst); `caps` pins a V4L2 camera's mode.
    package static func videoSourceValues(_ camera: ApplianceConfig.Camera, video: ApplianceConfig.Video, caps: String)
        -> [String: String]
    {
        [
            "device": camera.device, "pattern": camera.pattern, "caps": caps,
            "jpeg_decoder": V4L2Source.jpegDecoder ?? "jpegdec",
            "width": "\(video.width)", "height": "\(video.height)", "framerate": "\(video.framerate)",
        ]
    }

    /// The placeholders of encoders/aac.gst.
    public static func audioEncoderValues(_ a: ApplianceConfig.Audio) -> [String: String] {
        ["bitrate_bps": "\(a.bitrateKbps * 1000)"]
    }
}
