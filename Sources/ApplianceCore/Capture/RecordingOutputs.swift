import GStreamerKit

/// Where recording bins attach to the encoded streams.
///
/// Without pre-record, each recording requests its own pads from the encoded tees. With `pre_record_s` > 0 each
/// encoded stream also feeds a leaky "window" queue (pre-record + two keyframe intervals + 1 s) whose src pad is
/// held by a blocking probe while nothing records; a recording links to the window's src pad and releases the hold.
/// When a blocking probe is removed, GStreamer runs probes added meanwhile on the held buffer too ("probe list
/// changed, restarting" in gstpad.c; pinned by GStreamerKitTests), so the recording's cut probe sees every buffer.
final class RecordingOutputs: Sendable {
    enum Stream: Sendable { case video, audio }

    let videoTee: Element
    let audioTee: Element?
    /// Pre-record window in ns; nil without pre-record.
    let window: UInt64?
    /// The video window; replaced when the encoder is (`renewVideoWindow`).
    private let videoWindowElement = Locked<Element?>(nil)
    private var videoWindow: Element? { videoWindowElement.withLock { $0 } }
    private let audioWindow: Element?
    private let holds = Locked<[Stream: Probe]>([:])
    private let pipeline: Pipeline
    private let capacity: UInt64

    init(pipeline: Pipeline, videoTee: Element, audioTee: Element?, config: ApplianceConfig) throws {
        self.videoTee = videoTee
        self.audioTee = audioTee
        self.pipeline = pipeline
        let pre = config.recording.preRecordS
        capacity = UInt64((pre + 2 * config.video.keyframeIntervalS + 1) * 1_000_000_000)
        guard pre > 0 else {
            window = nil
            audioWindow = nil
            return
        }
        window = UInt64(pre * 1_000_000_000)
        let video = try Self.makeWindow("video-window", after: videoTee, capacity: capacity, in: pipeline)
        let (capacity, pipeline) = (capacity, pipeline)
        audioWindow = try audioTee.map { try Self.makeWindow("audio-window", after: $0, capacity: capacity, in: pipeline) }
        videoWindowElement.withLock { $0 = video }
        hold(.video)
        if audioWindow != nil { hold(.audio) }
    }

    /// `start`: the graph plays, so the queue is started (its src held first) before the tee's pad is linked: a
    /// buffer pushed into a pad not yet active returns FLUSHING, which would stop the encoder's branch.
    private static func makeWindow(_ name: String, after tee: Element, capacity: UInt64, in pipeline: Pipeline,
                                   start: ((Element) -> Void)? = nil) throws -> Element {
        let queue = try Element.make("queue", name: name)
        try queue.set("leaky", string: "downstream")
        queue.set("max-size-buffers", uint: 0)
        queue.set("max-size-bytes", uint: 0)
        queue.set("max-size-time", uint64: capacity)
        // The window's src is held while nothing records: a serialized query would wait behind the hold for good,
        // and the encoder that sent it with it (openh264 renegotiating stopped there: no output, then failover).
        CaptureGraph.keepAllocationQueriesOut(of: queue)
        try pipeline.add(queue)
        start?(queue)
        try tee.link(queue)
        return queue
    }

    /// A new video window in place of the old one (pre-record only, while nothing records), once a new encoder's
    /// stream has reached the tee: the old window holds the replaced encoder's frames and caps, which a recording
    /// must not begin with (a file takes one encoder's stream). Blocking (state changes).
    func renewVideoWindow(generation: Int) throws {
        guard let old = videoWindow, let sink = old.staticPad("sink"), let teePad = sink.peer else { return }
        teePad.unlink(sink)
        videoTee.releaseRequestPad(teePad)
        // Stopped while still held: the held buffer is flushed, not pushed out of an unlinked pad (an error).
        old.setLockedState(true)
        _ = try? old.setState(.null)
        let probe = holds.withLock { $0.removeValue(forKey: .video) }
        probe?.remove()
        pipeline.remove(old)
        _ = try Self.makeWindow("video-window-\(generation)", after: videoTee, capacity: capacity, in: pipeline) { queue in
            self.videoWindowElement.withLock { $0 = queue }
            self.hold(.video)
            _ = queue.syncStateWithParent()
        }
    }

    /// Pads for a new recording's video and audio.
    func attach() throws -> (video: Pad, audio: Pad?) {
        if let videoWindow {
            return (videoWindow.staticPad("src")!, audioWindow?.staticPad("src"))
        }
        return (try videoTee.requestPad("src_%u"), try audioTee?.requestPad("src_%u"))
    }

    /// Pads straight from the encoded tees (a loop recording's next segment, which overlaps the one before).
    func attachToTees() throws -> (video: Pad, audio: Pad?) {
        (try videoTee.requestPad("src_%u"), try audioTee?.requestPad("src_%u"))
    }

    func releaseTeePads(video: Pad, audio: Pad?) {
        videoTee.releaseRequestPad(video)
        if let audio, let audioTee { audioTee.releaseRequestPad(audio) }
    }

    /// Lets a held window flow (pre-record only; thread-safe, also from a streaming thread).
    func release(_ stream: Stream) {
        let probe = holds.withLock { $0.removeValue(forKey: stream) }
        probe?.remove()
    }

    /// Holds a window's src pad (pre-record only).
    func hold(_ stream: Stream) {
        guard let pad = (stream == .video ? videoWindow : audioWindow)?.staticPad("src") else { return }
        let probe = pad.addProbe([.block, .buffer]) { _ in .ok }
        let previous = holds.withLock { holds -> Probe? in
            defer { holds[stream] = probe }
            return holds[stream]
        }
        previous?.remove()
    }

    /// First step of detaching a recording: stop the flow into it (pre-record: hold the windows again).
    func quiesce() {
        guard window != nil else { return }
        hold(.video)
        if audioWindow != nil { hold(.audio) }
    }

    /// Last step: give back request pads (no pre-record).
    func detach(video: Pad, audio: Pad?) {
        guard window == nil else { return }
        releaseTeePads(video: video, audio: audio)
    }
}
