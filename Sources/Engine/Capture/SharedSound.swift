import ApplianceBase
import GStreamerKit
import Settings

/// One microphone heard by several channels (`ApplianceConfig.channelViews`): a sound card is opened by one capture
/// at a time, so the channel that opens it hands what it hears, after its conversion (and echo canceller), through a
/// leaky queue (the microphone's thread never waits for a listener) to an appsink per channel that records it too.
/// Each of those channels' microphones is `sources/audio-camera.gst` (an appsrc mixed onto a live silence, as a
/// camera's sound is), which stamps the sound on arrival and has its own level, gate and AAC encoder. Channels are
/// built in order and the one that opens the card first; its outlets wait (holding one buffer) until each listener's
/// input is there. Shared by every channel's graph of one appliance.
public final class SharedSound: Sendable {
    /// The opener's appsink for each listening channel, by the listener's name.
    private let outlets = Locked<[String: Element]>([:])

    public init() {}

    /// The opener's microphone chain hands its raw sound to `listeners` from `tee` (raw audio, before the level).
    func addOutlets(for listeners: [String], after tee: Element, audio: ApplianceConfig.Audio, to pipeline: Pipeline)
        throws
    {
        for listener in listeners {
            let queue = try Element.make("queue", name: "share-queue-\(listener)")
            try queue.set("leaky", string: "downstream")
            queue.set("max-size-time", uint64: 1_000_000_000)
            queue.set("max-size-buffers", uint: 0)
            queue.set("max-size-bytes", uint: 0)
            let convert = try Element.make("audioconvert", name: "share-convert-\(listener)")
            let format = try Element.make("capsfilter", name: "share-caps-\(listener)")
            format.set("caps", try Caps(CameraSound.format(audio)))
            let sink = try Element.make("appsink", name: "share-\(listener)")
            // On the microphone's thread, never waiting: no clock, no preroll, and until the listener is there one
            // buffer held at most.
            sink.set("sync", false)
            sink.set("async", false)
            sink.set("enable-last-sample", false)
            sink.set("max-buffers", uint: 1)
            sink.set("drop", true)
            try pipeline.add([queue, convert, format, sink])
            try Element.link([tee, queue, convert, format, sink])
            outlets.withLock { $0[listener] = sink }
        }
    }

    /// A listening channel's microphone input (the appsrc of its `audio-camera` bin) takes the opener's sound from
    /// now on; false when no outlet was made for `channel`.
    func listen(_ channel: String, input: Element) -> Bool {
        guard let sink = outlets.withLock({ $0[channel] }) else { return false }
        AppSink.forward(sink, to: input)
        return true
    }
}
