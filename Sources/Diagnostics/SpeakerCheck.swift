import Engine
import Foundation
import GStreamerKit
import Settings

/// The `[speaker]`: which sink it resolves to, and whether that sink opens and plays (50 ms of silence through it,
/// as a sound would go: audioconvert, audioresample, the sink). No speaker is not a fault.
enum SpeakerCheck {
    static let name = "speaker"

    static func run(_ speaker: ApplianceConfig.Speaker) -> DoctorCheck {
        guard let sink = SpeakerSink.resolve(speaker) else {
            return .pass(
                name,
                speaker.device == "none"
                    ? "off ([speaker] device = \"none\")"
                    : "none: no playback device (/dev/snd/pcmC*D*p); `ctl play` and Talk say so")
        }
        let pipeline = Pipeline(name: "speaker-check")
        do {
            let bin = try Bin.parse(
                """
                audiotestsrc wave=silence num-buffers=5 samplesperbuffer=480 ! audioconvert ! audioresample ! \
                \(sink.description)
                """,
                name: "trial", label: "[speaker]", ghostUnlinkedPads: false)
            try pipeline.add(bin)
            try pipeline.runToEnd(timeout: ClockTime(seconds: 5))
        } catch {
            let words = (error as? GStreamerError).map(SoundPlayback.words) ?? "\(error)"
            return .fail(
                name, "\(sink.label) cannot play: \(words)",
                fix: "`aplay -l` lists the playback devices: set [speaker] device (\"hw:1,0\"), or \"none\"")
        }
        return .pass(name, "\(sink.label): opens and plays" + (speaker.feedback ? "; feedback chimes on" : ""))
    }
}
