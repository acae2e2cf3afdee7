import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Mp4
import Settings

/// One recording's muxing bin: [queue ! mp4mux] per stream → filesink, laid out so that what reached the disk can
/// be played if the process dies. Added behind the encoded tees while the rest of the graph keeps running.
package final class RecordingBin: Sendable {
    /// Recording bins are named `rec-<first 8 characters of the clip id>`.
    package static let namePrefix = "rec-"
    package static func name(id: String) -> String { namePrefix + id.prefix(8) }
    package let bin: Bin
    package let videoPad: Pad
    package let audioPad: Pad?
    let sinkPad: Pad

    private let fragmentWatch: Locked<FragmentStreamWatch>?

    /// `starts`: when the video and the audio of the recording start (running time), once its cut knows.
    /// `counters`: where the daemon adds up what the files wrote.
    package init(
        name: String, path: String, hasAudio: Bool, config: ApplianceConfig,
        counters: FragmentCounters = FragmentCounters(),
        starts: @escaping @Sendable () -> FragmentStreamWatch.Starts = { .init() }
    ) throws {
        let bin = Bin(name: name)
        self.bin = bin
        let mux = try Element.make("mp4mux", name: "\(name)-mux")
        try Self.configureCrashSafety(mux, config)
        mux.set("interleave-time", uint64: 500_000_000)
        let sink = try Element.make("filesink", name: "\(name)-sink")
        sink.set("location", path)
        sink.set("sync", false)
        sink.set("async", false)
        sink.set("enable-last-sample", false)
        // Every buffer reaches the kernel when it is written: a fragment whose end gets no fsync (one per interval)
        // must still survive a crash of the daemon, which loses filesink's own buffer (64 KiB by default).
        if config.recording.fileLayout == .fragmented { try sink.set("buffer-mode", string: "unbuffered") }
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
            if kind == "video", config.recording.fileLayout == .fragmented {
                Self.paceKeyframes(on: muxPad, config: config, counters: counters)
            }
            return try bin.addGhostPad(named: kind, target: queue.staticPad("sink")!)
        }
        videoPad = try branch("video", "video_%u", in: bin)
        audioPad = hasAudio ? try branch("audio", "audio_%u", in: bin) : nil
        sinkPad = sink.staticPad("sink")!
        if config.recording.fileLayout == .fragmented {
            fragmentWatch = Self.watchFragments(
                on: sinkPad, syncInterval: UInt64(config.recording.syncIntervalS * 1_000_000_000),
                counters: counters, starts: starts)
        } else {
            fragmentWatch = nil
        }
    }

    /// The fragment stream's counters (fragments written, syncs, start offsets that could not be written); nil for
    /// the reserved layout.
    var fragmentCounts: (fragments: Int, syncs: Int, unpatched: Int)? {
        fragmentWatch?.withLock { ($0.fragments, $0.syncs, $0.unpatched) }
    }

    /// Keyframes that come sooner than `sync_interval_s` after the last one go into the muxer as ordinary frames
    /// (KeyframePacer), so that no encoder can make mp4mux start fragments more often than that.
    private static func paceKeyframes(on pad: Pad, config: ApplianceConfig, counters: FragmentCounters) {
        let frame = UInt64(1_000_000_000 / max(1, config.video.framerate))
        let pacer = Locked(
            KeyframePacer(interval: UInt64(config.recording.syncIntervalS * 1_000_000_000), tolerance: frame / 2))
        pad.addProbe(.buffer) { info in
            guard let buffer = info.buffer, buffer.isKeyframe, buffer.pts != UInt64.max else { return .ok }
            if !pacer.withLock({ $0.indexes(keyframeAt: buffer.pts) }) {
                info.markDeltaUnit()
                counters.addUnindexedKeyframe()
            }
            return .ok
        }
    }

    /// The sink tells mp4mux it cannot seek, so mp4mux writes the file front to back and never goes back over it
    /// (no `mfra`, no header rewritten at the end); every buffer then passes a FragmentStreamWatch, which marks the
    /// end of a fragment for an fsync (once per `sync_interval_s` of media) and writes each track's start into its
    /// fragments' decode times.
    private static func watchFragments(
        on pad: Pad, syncInterval: UInt64, counters: FragmentCounters,
        starts: @escaping @Sendable () -> FragmentStreamWatch.Starts
    ) -> Locked<FragmentStreamWatch> {
        let watch = Locked(FragmentStreamWatch(syncInterval: syncInterval))
        pad.addProbe(.queryDownstream) { info in info.answerNotSeekable() ? .handled : .ok }
        pad.addProbe(.buffer) { info in
            guard let buffer = info.buffer else { return .ok }
            let action = watch.withLock {
                $0.next(size: buffer.size, starts: starts()) { buffer.bytes(at: $0, upTo: $1) }
            }
            for patch in action.patches { info.fillBuffer(at: patch.offset, with: patch.bytes) }
            if action.syncAfter { info.markSyncAfter() }
            counters.add(action)
            return .ok
        }
        return watch
    }

    /// `fragmented`: fragments of at most `sync_interval_s` (a video fragment also ends at each keyframe), each a
    /// `moof` and then its `mdat`, in mp4mux's DASH mode; the file is finished by Mp4Finishing after EOS (one index
    /// appended, one 16-byte write in front, no media copied), or after a crash by recovery. The DASH mode is chosen
    /// over `first-moov-then-finalise` because that mode leaks 4 KiB per fragment in mp4mux 1.22 (DESIGN-NOTES).
    /// `reserved`: index room for the longest the file can run, rewritten every `sync_interval_s`; the unused room
    /// is removed when the file is finalised (a copy: Mp4Compaction).
    static func configureCrashSafety(_ mux: Element, _ config: ApplianceConfig) throws {
        let recording = config.recording
        switch recording.fileLayout {
        case .fragmented:
            mux.set("fragment-duration", uint: UInt(max(100, (recording.syncIntervalS * 1000).rounded())))
            try mux.set("fragment-mode", string: "dash-or-mss")
        case .reserved:
            mux.set("reserved-max-duration", uint64: UInt64(longestFileS(config) * 1_000_000_000))
            mux.set("reserved-moov-update-period", uint64: UInt64(recording.syncIntervalS * 1_000_000_000))
        }
    }

    /// The longest one file can run: a loop segment ends on the first keyframe after `segment_s` (plus a margin
    /// for a late cut); a single-file recording at `max_duration_s`.
    package static func longestFileS(_ config: ApplianceConfig) -> Double {
        let recording = config.recording
        if recording.segmentS > 0 { return recording.segmentS + 2 * config.video.keyframeIntervalS + 5 }
        return recording.maxDurationS + 60
    }
}
