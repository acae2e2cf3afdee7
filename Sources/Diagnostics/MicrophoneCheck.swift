import Engine
import Foundation
import GStreamerKit
import Settings

/// Check 3: the `[audio]` source. ALSA capture cards are found as the daemon finds them (/dev/snd/pcmC*D*c),
/// named from /proc/asound; `auto` without one means a test tone, which is worth a warning, not a failure.
enum MicrophoneCheck {
    static let name = "microphone"

    static func run(_ audio: ApplianceConfig.Audio, cameras: [ApplianceConfig.Camera] = []) -> DoctorCheck {
        let capture = captureNodes()
        let isAuto = audio.source == "auto"
        switch audio.source {
        case "none":
            return .pass(name, "audio off ([audio] source = \"none\"): clips have no sound track")
        case "test":
            return .pass(name, "live test tone (audiotestsrc), as configured")
        case "camera":
            return camerasSound(cameras)
        default:
            guard !capture.isEmpty else {
                if isAuto {
                    return .warn(
                        name, "no ALSA capture device (/dev/snd/pcmC*c); a live test tone will be used",
                        fix: "connect a microphone, or set [audio] source = \"none\" for clips without sound")
                }
                return .fail(
                    name, "no ALSA capture device (/dev/snd/pcmC*c): appliance run will not start",
                    fix: "connect the microphone (arecord -l lists capture cards), or set [audio] source")
            }
            guard GStreamer.hasElement("alsasrc") else {
                let detail =
                    "a capture card is there but GStreamer has no alsasrc"
                    + (isAuto ? "; a live test tone will be used" : "")
                return DoctorCheck(
                    name: name, status: isAuto ? .warn : .fail, detail: detail,
                    fix: PluginPackages.fix(forMissing: "alsasrc"))
            }
            let unusable = capture.filter { access($0, R_OK | W_OK) != 0 }
            let cards = cardNames()
            let found =
                """
                ALSA device '\(audio.device)'; capture: \
                \(capture.map { ($0 as NSString).lastPathComponent }.joined(separator: ", "))
                """
                + (cards.isEmpty ? "" : " (\(cards.joined(separator: ", ")))")
            guard unusable.count < capture.count else {
                let node = DeviceNode.at(unusable[0])
                return .fail(
                    name, "\(found); this user cannot open \(unusable[0]) (\(node?.ownership ?? "?"))",
                    fix: "add the user to group \(node?.group ?? "audio") (usermod -aG \(node?.group ?? "audio") USER)")
            }
            return .pass(name, found)
        }
    }

    /// `[audio] source = "camera"`: the shown IP camera's sound; which cameras can give one (whether each has sound
    /// is seen when it connects: its line in the network camera check, `ctl cameras`).
    private static func camerasSound(_ cameras: [ApplianceConfig.Camera]) -> DoctorCheck {
        let network = cameras.filter { $0.source == "rtsp" }.map(\.name)
        guard !network.isEmpty else {
            return .warn(
                name,
                """
                [audio] source = \"camera\" but no camera is an IP camera (source = \"rtsp\"): the recording's \
                sound will be silence
                """,
                fix: "add an rtsp camera, or set [audio] source = \"auto\" for the board's microphone")
        }
        return .pass(
            name,
            "the shown IP camera's sound (\(network.joined(separator: ", "))); silence while another camera is shown")
    }

    /// Capture PCM nodes, as `SourceResolver` looks for them.
    static func captureNodes() -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/snd")) ?? []
        return entries.filter { $0.hasPrefix("pcmC") && $0.hasSuffix("c") }.sorted().map { "/dev/snd/" + $0 }
    }

    /// " 1 [Device         ]: USB-Audio - USB Audio Device" lines of /proc/asound/cards → "card 1: USB Audio Device".
    static func cardNames() -> [String] {
        guard let text = try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard let number = trimmed.split(separator: " ").first.flatMap({ Int($0) }),
                let dash = trimmed.range(of: " - ")
            else { return nil }
            return "card \(number): \(trimmed[dash.upperBound...])"
        }
    }
}
