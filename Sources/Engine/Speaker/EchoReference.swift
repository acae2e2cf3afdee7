import Foundation
import GStreamerKit
import Settings

/// What the speaker plays, handed to the microphone's echo canceller (`[speaker] echo_cancel`), so that a sound or a
/// talker on the speaker is not recorded back through the microphone (nor heard back by the talker).
///
/// webrtcdsp, in the microphone chain, subtracts what it learns from a webrtcechoprobe that it looks up by name when
/// it starts (it fails at start when there is none), while the speaker's pipelines live only as long as a sound. So
/// the probe lives here, in a small pipeline of its own (`appsrc ! webrtcechoprobe ! fakesink`) made with the
/// capture graph, before its microphone, and stopped with it. Each sound's and each talk's pipeline tees what goes
/// to its sink into this appsrc (`speakerTail`), at the pace the sink plays it. The pipelines' running times have
/// nothing in common, so webrtcdsp runs delay-agnostic: it reads the reference in order, 10 ms for each 10 ms of
/// microphone, and finds the echo's delay itself.
package final class EchoReference: Sendable {
    /// The reference's format: webrtcdsp's rates, one channel.
    package static let format = "audio/x-raw,format=S16LE,layout=interleaved,rate=48000,channels=1"
    /// The microphone rates webrtcdsp works at.
    package static let rates: Set<Int> = [8000, 16000, 32000, 48000]

    /// The probe's name, unique in the process (webrtcdsp finds it by name, among every pipeline's).
    package let probeName = "appliance-echo-\(UUID().uuidString.prefix(8).lowercased())"
    /// The appsrc the speaker's pipelines push into.
    package let input: Element
    private let pipeline: Pipeline

    package init() throws {
        pipeline = Pipeline(name: "echo-reference")
        // Leaky: a reference nobody reads (the microphone released) never holds up a speaker's pipeline.
        let bin = try Bin.parse(
            "appsrc name=reference is-live=true format=time do-timestamp=true block=false leaky-type=downstream "
                + """
                max-bytes=96000 caps=\"\(Self.format)\" ! webrtcechoprobe name=\(probeName) ! fakesink sync=false \
                async=false
                """,
            name: "echo-reference", label: "[speaker] echo_cancel", ghostUnlinkedPads: false)
        guard let input = bin.element(named: "reference") else {
            throw GStreamerError(element: "echo-reference", message: "no appsrc")
        }
        self.input = input
        try pipeline.add(bin)
    }

    /// Before the microphone starts. Blocking (a state change).
    package func start() throws { try pipeline.setState(.playing) }

    /// After the microphone stopped. Blocking.
    package func stop() { _ = try? pipeline.setState(.null) }

    /// The microphone's echo canceller: only that (no noise suppression, gain control or high-pass filter: the
    /// recording keeps the room's sound as the microphone hears it).
    package func makeCanceller() throws -> Element {
        let dsp = try Element.make("webrtcdsp", name: "echo-cancel")
        dsp.set("probe", probeName)
        dsp.set("echo-cancel", true)
        dsp.set("delay-agnostic", true)
        dsp.set("extended-filter", true)
        for off in ["noise-suppression", "gain-control", "high-pass-filter"] { dsp.set(off, false) }
        return dsp
    }

    /// What follows `volume` in a speaker pipeline: the sink, and with `echo` a branch to an appsink "echo" that
    /// plays at the sink's pace (sync) in the reference's format.
    package static func speakerTail(sink: SpeakerSink, echo: Bool) -> String {
        guard echo else { return sink.description }
        return
            "tee name=speaker-tee ! queue ! \(sink.description)  speaker-tee. ! queue ! audioconvert ! audioresample ! "
            + "\(format) ! appsink name=echo sync=true max-buffers=50 drop=true enable-last-sample=false"
    }

    /// Hands what `bin`'s appsink "echo" (`speakerTail`) receives to the reference.
    package func feed(from bin: Bin) {
        if let echo = bin.element(named: "echo") { AppSink.forward(echo, to: input) }
    }
}

extension EchoReference {
    /// Whether the microphone gets an echo canceller: `on` and `off` as said; `auto` when there is a speaker and the
    /// microphone is a sound card (ALSA) at a rate webrtcdsp takes. `on` that cannot be honoured is a start error.
    package static func wanted(_ config: ApplianceConfig, audioKind: String) throws -> Bool {
        let setting = config.speaker.echoCancel
        // A channel that records another's microphone has its sound after that one's canceller.
        guard setting != "off", audioKind != "none", audioKind != ApplianceConfig.sharedAudioSource else {
            return false
        }
        let speaker = SpeakerSink.resolve(config.speaker) != nil
        let problem =
            !speaker
            ? "there is no speaker ([speaker] device)"
            : !rates.contains(config.audio.rate)
                ? "[audio] rate \(config.audio.rate) is not one webrtcdsp takes (8000, 16000, 32000, 48000)"
                : !GStreamer.hasElement("webrtcdsp")
                    ? "GStreamer's webrtcdsp (gstreamer1.0-plugins-bad) is not installed" : nil
        if setting == "on" {
            if let problem {
                throw GStreamerError(
                    element: "echo-cancel", message: "[speaker] echo_cancel = \"on\" cannot be: \(problem)")
            }
            return true
        }
        return problem == nil && audioKind == "alsa"
    }
}
