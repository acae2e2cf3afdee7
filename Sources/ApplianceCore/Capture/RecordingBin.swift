import ApplianceProtocol
import GStreamerKit

/// One recording's muxing bin: [queue ! mp4mux] per stream → filesink, with robust muxing so the file stays
/// playable if the process dies. Added behind the encoded tees while the rest of the graph keeps running.
final class RecordingBin: Sendable {
    /// Recording bins are named `rec-<first 8 characters of the clip id>`.
    static let namePrefix = "rec-"
    static func name(id: String) -> String { namePrefix + id.prefix(8) }
    let bin: Bin
    let videoPad: Pad
    let audioPad: Pad?
    let sinkPad: Pad

    init(name: String, path: String, hasAudio: Bool, config: ApplianceConfig) throws {
        let bin = Bin(name: name)
        self.bin = bin
        let mux = try Element.make("mp4mux", name: "\(name)-mux")
        // Robust muxing: reserve header space for the longest the file can run, and rewrite the index every sync
        // interval. What is left unused is removed when the file is finalised (Mp4Compaction).
        let recording = config.recording
        let reserve = Self.longestFileS(config)
        mux.set("reserved-max-duration", uint64: UInt64(reserve * 1_000_000_000))
        mux.set("reserved-moov-update-period", uint64: UInt64(recording.syncIntervalS * 1_000_000_000))
        mux.set("interleave-time", uint64: 500_000_000)
        let sink = try Element.make("filesink", name: "\(name)-sink")
        sink.set("location", path)
        sink.set("sync", false)
        sink.set("async", false)
        try bin.add([mux, sink])
        try mux.link(sink)

        func branch(_ kind: String, _ muxTemplate: String, in bin: Bin) throws -> Pad {
            let queue = try Element.make("queue", name: "\(name)-\(kind)-queue")
            queue.set("max-size-buffers", uint: 0)
            queue.set("max-size-bytes", uint: 0)
            queue.set("max-size-time", uint64: 5_000_000_000)
            try bin.add(queue)
            let muxPad = try mux.requestPad(muxTemplate)
            try queue.staticPad("src")!.link(muxPad)
            return try bin.addGhostPad(named: kind, target: queue.staticPad("sink")!)
        }
        videoPad = try branch("video", "video_%u", in: bin)
        audioPad = hasAudio ? try branch("audio", "audio_%u", in: bin) : nil
        sinkPad = sink.staticPad("sink")!
    }

    /// The longest one file can run: a loop segment ends on the first keyframe after `segment_s` (plus a margin
    /// for a late cut); a single-file recording at `max_duration_s`.
    static func longestFileS(_ config: ApplianceConfig) -> Double {
        let recording = config.recording
        if recording.segmentS > 0 { return recording.segmentS + 2 * config.video.keyframeIntervalS + 5 }
        return recording.maxDurationS + 60
    }
}
