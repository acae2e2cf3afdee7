import Foundation
import GStreamerKit
import Settings

/// Where the speaker's sound goes: `[speaker] pipeline` (any sink description), else an ALSA device (`auto`: ALSA's
/// default when the board has a playback device), else nowhere (no speaker).
package struct SpeakerSink: Sendable, Equatable {
    /// The sink part of each sound's pipeline (raw audio arrives after audioconvert, audioresample and volume).
    package let description: String
    /// What status and results call it: "alsa default", "alsa hw:1,0" or the pipeline as configured.
    package let label: String

    /// The sink for `[speaker]`; nil when there is none (`device = "none"`, or `auto` without a playback device).
    package static func resolve(_ speaker: ApplianceConfig.Speaker) -> SpeakerSink? {
        if !speaker.pipeline.isEmpty { return SpeakerSink(description: speaker.pipeline, label: speaker.pipeline) }
        switch speaker.device {
        case "none": return nil
        case "auto":
            guard hasPlaybackCard(), GStreamer.hasElement("alsasink") else { return nil }
            return alsa("default")
        default: return alsa(speaker.device)
        }
    }

    private static func alsa(_ device: String) -> SpeakerSink {
        SpeakerSink(description: "alsasink device=\(Bin.quoted(device))", label: "alsa \(device)")
    }

    /// Playback PCM nodes (/dev/snd/pcmC0D0p).
    package static func hasPlaybackCard() -> Bool {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/snd")) ?? []
        return entries.contains { $0.hasPrefix("pcmC") && $0.hasSuffix("p") }
    }
}
