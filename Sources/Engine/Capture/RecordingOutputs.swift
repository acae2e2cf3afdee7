import ApplianceBase
import GStreamerKit
import Mp4
import Settings

/// Where recording bins attach to the encoded streams.
///
/// Without pre-record, each recording requests its own pads from the encoded tees. With `pre_record_s` > 0 each
/// encoded stream also feeds a leaky "window" queue (pre-record + two keyframe intervals + 1 s) whose src pad is
/// held by a blocking probe while nothing records; a recording links to the window's src pad and releases the hold.
/// When a blocking probe is removed, GStreamer runs probes added meanwhile on the held buffer too ("probe list
/// changed, restarting" in gstpad.c; pinned by GStreamerKitTests), so the recording's cut probe sees every buffer.
package final class RecordingOutputs: Sendable {
    package enum Stream: Sendable { case video, audio }

    let videoTee: Element
    let audioTee: Element?
    /// Pre-record window in ns; nil without pre-record.
    package let window: UInt64?
    /// The video window; replaced when the encoder is (`retireVideoWindow`, `nextVideoWindow`).
    private let videoWindowElement = Locked<Element?>(nil)
    private var videoWindow: Element? { videoWindowElement.withLock { $0 } }
    private let audioWindow: Element?
    private let holds = Locked<[Stream: Probe]>([:])
    private let pipeline: Pipeline
    private let capacity: UInt64

    package init(pipeline: Pipeline, videoTee: Element, audioTee: Element?, config: ApplianceConfig) throws {
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
        audioWindow = try audioTee.map {
            try Self.makeWindow("audio-window", after: $0, capacity: capacity, in: pipeline)
        }
        videoWindowElement.withLock { $0 = video }
        hold(.video)
        if audioWindow != nil { hold(.audio) }
    }

    /// `start`: the graph plays, so the queue is started (its src held first) before the tee's pad is linked: a
    /// buffer pushed into a pad not yet active returns FLUSHING, which would stop the encoder's branch.
    private static func makeWindow(_ name: String, after tee: Element, capacity: UInt64, in pipeline: Pipeline) throws
        -> Element
    {
        let queue = try makeQueue(name, capacity: capacity)
        try pipeline.add(queue)
        try tee.link(queue)
        return queue
    }

    private static func makeQueue(_ name: String, capacity: UInt64) throws -> Element {
        let queue = try Element.make("queue", name: name)
        try queue.set("leaky", string: "downstream")
        queue.set("max-size-buffers", uint: 0)
        queue.set("max-size-bytes", uint: 0)
        queue.set("max-size-time", uint64: capacity)
        // The window's src is held while nothing records: a serialized query would wait behind the hold for good,
        // and the encoder that sent it with it (openh264 renegotiating stopped there: no output, then failover).
        CaptureGraph.keepAllocationQueriesOut(of: queue)
        return queue
    }

    /// The video encoder failed (pre-record only): the window keeps the frames it gave before, and is taken off the
    /// tee with an end of stream after them. A recording attached to it (one going on) gets them all and its end;
    /// one that starts soon after (within `pre_record_s`) can still take them (`attachRetired`). Until the next
    /// window is linked (`nextVideoWindow`), a recording attaches to nothing new. Blocking (state changes).
    package func retireVideoWindow() {
        guard
            let old = videoWindowElement.withLock({ w in
                defer { w = nil }
                return w
            }),
            let sink = old.staticPad("sink"), let teePad = sink.peer
        else { return }
        discardRetired()
        teePad.unlink(sink)
        videoTee.releaseRequestPad(teePad)
        _ = sink.send(.eos())
        let held = holds.withLock { $0.removeValue(forKey: .video) }
        retired.withLock { $0 = Retired(queue: old, hold: held, at: .now) }
    }

    /// A new video window, held and playing but not yet linked; the returned action links it to the encoded tee
    /// and makes it the window. Run it on the streaming thread with the next encoder's first access unit (its
    /// caps already on the tee, `EncoderChain.replace`'s `onFirstOutput`): the window begins with that encoder's
    /// caps and first keyframe, and nothing of its stream is lost. Nil without pre-record. Blocking (state changes).
    package func nextVideoWindow(generation: Int) throws -> (@Sendable () -> Void)? {
        guard window != nil else { return nil }
        // No time limit at first: a queue linked in mid-stream measures its level against a src side that has seen no
        // segment yet (position 0), so the first buffer, hours of running time in, found it "full" and was leaked —
        // the new stream's first keyframe (measured: the clip after a failover began a GOP late, under load). The
        // limit is set once the first frames are through.
        let queue = try Self.makeQueue("video-window-\(generation)", capacity: 0)
        try pipeline.add(queue)
        let hold = queue.staticPad("src")?.addProbe([.block, .buffer]) { _ in .ok }
        _ = queue.syncStateWithParent()
        let (tee, windows, holds, capacity) = (videoTee, videoWindowElement, holds, capacity)
        return {
            guard let pad = try? tee.requestPad("src_%u"), let sink = queue.staticPad("sink"),
                (try? pad.link(sink)) != nil
            else { return }
            holds.withLock { $0[.video] = hold }
            windows.withLock { $0 = queue }
            after(.seconds(1)) { queue.set("max-size-time", uint64: capacity) }
        }
    }

    /// The window retired when the encoder failed, and whether a recording has taken it.
    private struct Retired: @unchecked Sendable {
        let queue: Element
        let hold: Probe?
        let at: ContinuousClock.Instant
        var taken = false
    }
    private let retired = Locked<Retired?>(nil)

    /// Pads for a recording that starts with the frames the failed encoder gave: the retired window's, if no
    /// recording has taken it and the failure was less than `pre_record_s` ago, and the audio window's. Nil when
    /// there is none to take.
    func attachRetired() -> (video: Pad, audio: Pad?)? {
        guard let window else { return nil }
        let taken = retired.withLock { r -> Element? in
            guard let current = r, !current.taken, ContinuousClock.now - current.at < .nanoseconds(Int64(window)) else {
                return nil
            }
            r?.taken = true
            return current.queue
        }
        guard let queue = taken, let pad = queue.staticPad("src") else { return nil }
        return (pad, audioWindow?.staticPad("src"))
    }

    /// Marks the retired window as taken (its frames are in a clip already, or nobody may have them).
    func takeRetired() { retired.withLock { $0?.taken = true } }

    /// Lets the retired window's frames flow into the recording that took it.
    func releaseRetired() { retired.withLock { $0?.hold?.remove() } }

    /// Stops and removes the retired window. Blocking (a state change).
    func discardRetired() {
        guard
            let old = retired.withLock({ r in
                defer { r = nil }
                return r
            })
        else { return }
        old.hold?.remove()
        old.queue.setLockedState(true)
        _ = try? old.queue.setState(.null)
        pipeline.remove(old.queue)
    }

    /// Pads for a new recording's video and audio.
    package func attach() throws -> (video: Pad, audio: Pad?) {
        if let videoWindow {
            return (videoWindow.staticPad("src")!, audioWindow?.staticPad("src"))
        }
        // Between a failed encoder's window and the next one's link: the tee's stream now would start a GOP late.
        guard window == nil else {
            throw GStreamerError(element: "video-window", message: "the video encoder is being replaced; try again")
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
    package func release(_ stream: Stream) {
        let probe = holds.withLock { $0.removeValue(forKey: stream) }
        probe?.remove()
    }

    /// Holds a window's src pad (pre-record only); false when there is no window to hold.
    @discardableResult
    package func hold(_ stream: Stream) -> Bool {
        guard let pad = (stream == .video ? videoWindow : audioWindow)?.staticPad("src") else { return false }
        let probe = pad.addProbe([.block, .buffer]) { _ in .ok }
        let previous = holds.withLock { holds -> Probe? in
            defer { holds[stream] = probe }
            return holds[stream]
        }
        previous?.remove()
        return true
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
