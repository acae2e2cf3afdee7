import ApplianceProtocol
import GStreamerKit

/// One recording's muxing bin: [queue ! mp4mux] per stream → filesink, laid out so that what reached the disk can
/// be played if the process dies. Added behind the encoded tees while the rest of the graph keeps running.
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
        try Self.configureCrashSafety(mux, config)
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
        // A fragment is durable the moment it is indexed: the sync comes right after its moof, before the next
        // fragment's bytes, so no page is written twice for it (a sync at any other moment cleans the half-written
        // last page and the fragment's header page, and both are written again: 2.5 % of a 4 Mbit/s clip).
        if config.recording.fileLayout == .fragmented { sinkPad.syncAfterEachFragment() }
    }

    /// `fragmented`: a fragment every `sync_interval_s`, each indexed by a `moof` after its media; at EOS mp4mux
    /// appends one full index and turns the file into a plain MP4 without copying media (Mp4Finishing does the
    /// same for a file that never got its EOS). `reserved`: index room for the longest the file can run, rewritten
    /// every `sync_interval_s`; the unused room is removed when the file is finalised (a copy: Mp4Compaction).
    static func configureCrashSafety(_ mux: Element, _ config: ApplianceConfig) throws {
        let recording = config.recording
        switch recording.fileLayout {
        case .fragmented:
            mux.set("fragment-duration", uint: UInt(max(100, (recording.syncIntervalS * 1000).rounded())))
            try mux.set("fragment-mode", string: "first-moov-then-finalise")
        case .reserved:
            mux.set("reserved-max-duration", uint64: UInt64(longestFileS(config) * 1_000_000_000))
            mux.set("reserved-moov-update-period", uint64: UInt64(recording.syncIntervalS * 1_000_000_000))
        }
    }

    /// The longest one file can run: a loop segment ends on the first keyframe after `segment_s` (plus a margin
    /// for a late cut); a single-file recording at `max_duration_s`.
    static func longestFileS(_ config: ApplianceConfig) -> Double {
        let recording = config.recording
        if recording.segmentS > 0 { return recording.segmentS + 2 * config.video.keyframeIntervalS + 5 }
        return recording.maxDurationS + 60
    }
}
