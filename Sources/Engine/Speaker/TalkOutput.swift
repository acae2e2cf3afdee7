import Foundation
import GStreamerKit

/// The speaker while someone talks from the dashboard: a pipeline of its own (`appsrc ! audioconvert ! audioresample
/// ! volume !` the speaker's sink) whose appsrc takes the talker's decoded sound (48 kHz mono, pushed by the WebRTC
/// session as it arrives, stamped here on arrival), made when the talk starts and stopped when it ends.
package final class TalkOutput: Sendable {
    /// The appsrc the talker's session pushes into.
    package let input: Element
    private let pipeline: Pipeline
    package let started = ContinuousClock.now

    /// The format the WebRTC session decodes the talker's Opus to: the echo reference's own (48 kHz mono S16).
    static let format = EchoReference.format

    /// Opens the speaker (blocking); throws GStreamer's words when its sink cannot start.
    package init(sink: SpeakerSink, volume: Double, echo: EchoReference? = nil) throws {
        pipeline = Pipeline(name: "talk")
        // 60 ms of latency: a buffer stamped on arrival is still in time at the sink; WebRTC's own jitter buffer
        // has smoothed the network already.
        let bin = try Bin.parse(
            "appsrc name=talk is-live=true format=time do-timestamp=true block=false leaky-type=downstream "
                + "max-bytes=96000 min-latency=60000000 caps=\"\(Self.format)\" ! audioconvert ! audioresample ! "
                + "volume name=volume ! \(EchoReference.speakerTail(sink: sink, echo: echo != nil))",
            name: "talk-output", label: "[speaker] talk", ghostUnlinkedPads: false)
        try bin.element(named: "volume")?.set("volume", string: "\(volume)")
        guard let input = bin.element(named: "talk") else {
            throw GStreamerError(element: "talk", message: "no appsrc")
        }
        self.input = input
        echo?.feed(from: bin)
        try pipeline.add(bin)
        // A live source: the sink completes PLAYING only with the first buffer (the talker's first words), so the
        // start is judged by the state change itself (an ALSA device that cannot open fails it) and the bus.
        do {
            try pipeline.setState(.playing)
            if let early = pipeline.popError(timeout: ClockTime(milliseconds: 100)) { throw early }
        } catch {
            let said = pipeline.popError(timeout: ClockTime(milliseconds: 200))
            _ = try? pipeline.setState(.null)
            throw said ?? error
        }
    }

    /// Closes the speaker. Blocking.
    package func stop() { _ = try? pipeline.setState(.null) }
}
