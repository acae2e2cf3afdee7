import Foundation
import Mp4

/// Follows, box by box, the bytes mp4mux hands the recording's filesink, and says what to do with each buffer.
///
/// The recording bin runs mp4mux in its DASH fragment mode behind a sink that answers "not seekable", so the file is
/// written front to back and never rewritten: `ftyp`, a `moov` that describes the tracks (no samples), then for each
/// stream's fragment a `moof` (its index) followed by the `mdat` with its media. Two things are done on the way:
/// - **Syncs.** A fragment is whole on disk once its `mdat`'s last byte is written. The buffer that completes a
///   fragment is marked for an fsync when the fragment reaches the next multiple of `syncInterval` of the
///   recording's media time (its `tfdt` plus its samples' durations): one sync per interval, however many fragments
///   a still, noisy scene or an encoder with ideas of its own makes (a fragment per keyframe, several a second; a
///   sync for each would write the card's partly filled last page again every time). Media time rather than the
///   wall clock: the video and the audio fragments of an interval end a few ms apart, and a clock would sync one or
///   the other by chance, sometimes neither for two intervals.
/// - **Where each track starts.** mp4mux's fragment decode times (`tfdt`) count from each track's own first sample,
///   so a track that starts later than the other (audio starts on the first AAC frame after the first video
///   frame: up to one AAC frame later) would lose that offset. The later track's `tfdt`s are moved by it, so the
///   file itself says when each track starts, even if the daemon dies before it is finished.
///
/// A pure value: buffers, their bytes and the starts are passed in (FragmentStreamWatchTests).
package struct FragmentStreamWatch: Sendable {
    /// Bytes to write over the buffer: `offset` is from the buffer's start.
    package struct Patch: Equatable, Sendable {
        package var offset: Int
        package var bytes: [UInt8]
    }

    /// What to do with one buffer.
    package struct Action: Equatable, Sendable {
        package var syncAfter = false
        package var patches: [Patch] = []
        /// Fragments this buffer completed.
        var completedFragments = 0
        /// `moof`s in this buffer whose track start could not be written.
        var unpatchedMoofs = 0
    }

    /// Running times (ns) at which the tracks start, as the recording's cut knows them (nil: not yet).
    package struct Starts: Equatable, Sendable {
        package var video: UInt64?
        package var audio: UInt64?

        package init(video: UInt64? = nil, audio: UInt64? = nil) {
            self.video = video
            self.audio = audio
        }
    }

    package typealias TrackKind = Mp4Tracks.Kind
    package typealias Track = Mp4Tracks.Track

    /// ns of media between syncs.
    package let syncInterval: UInt64
    /// Fragments whose media has been handed to the sink whole.
    package private(set) var fragments = 0
    /// Buffers marked for a sync.
    package private(set) var syncs = 0
    /// `moof`s whose start offset could not be written (split across buffers, or a `tfdt` that would overflow).
    package private(set) var unpatched = 0
    package private(set) var tracks: [UInt32: Track] = [:]
    /// Running time (ns) the tracks' `tfdt`s count from: the earliest track start known at the first `moof`.
    package private(set) var origin: UInt64?

    private var trackDefaults: [UInt32: Mp4Fragments.TrackDefaults] = [:]
    private var remaining: Int64 = 0
    private var current = ""
    private var previous = ""
    private var pendingHeader: [UInt8] = []
    /// Media time (s) at which the fragment being written ends; nil when its `moof` could not be read.
    private var fragmentEnd: Double?
    /// The next sync is due with the first fragment that ends at or after this media time (s).
    private var syncDue = 0.0

    package init(syncInterval: UInt64) { self.syncInterval = syncInterval }

    /// One buffer of `size` bytes on its way to the file; `read(offset, count)` gives its bytes.
    package mutating func next(size: Int, starts: Starts, read: (Int, Int) -> [UInt8]) -> Action {
        var action = Action()
        var position = 0
        while position < size {
            if remaining == 0 {
                guard openBox(at: position, size: size, starts: starts, read: read, into: &action) else { break }
            }
            let take = Int(min(remaining, Int64(size - position)))
            position += take
            remaining -= Int64(take)
            if remaining == 0 { closeBox(into: &action) }
        }
        return action
    }

    /// Reads the header of the box starting at `position` (or completing one split across buffers) and handles an
    /// index box; false when the buffer ends inside the header (kept for the next buffer).
    private mutating func openBox(
        at position: Int, size: Int, starts: Starts, read: (Int, Int) -> [UInt8],
        into action: inout Action
    ) -> Bool {
        let carried = pendingHeader.count
        let header = pendingHeader + read(position, min(16 - carried, size - position))
        guard header.count >= 8 else {
            pendingHeader = header
            return false
        }
        let data = Data(header)
        var boxSize = Int64(data.uint32(at: 0))
        var headerSize = 8
        if boxSize == 1 {
            guard header.count >= 16 else {
                pendingHeader = header
                return false
            }
            boxSize = Int64(data.uint64(at: 8))
            headerSize = 16
        }
        pendingHeader = []
        current = data.fourCC(at: 4)
        // Size 0 runs to the end of the file: nothing after it to follow.
        remaining = boxSize == 0 ? .max : max(boxSize, Int64(headerSize)) - Int64(carried)
        let start = position - carried
        let whole = carried == 0 && Int64(start) + boxSize <= Int64(size)
        switch current {
        case "moov" where whole:
            readTracks(moov: Data(read(start, Int(boxSize))))
        case "moof" where whole:
            fragmentEnd = inspect(moof: Data(read(start, Int(boxSize))), at: start, starts: starts, into: &action)
        case "moof":
            fragmentEnd = nil
            unpatched += 1
            action.unpatchedMoofs += 1
        default:
            break
        }
        return true
    }

    private mutating func closeBox(into action: inout Action) {
        if current == "mdat", previous == "moof" {
            fragments += 1
            action.completedFragments += 1
            // A fragment whose end is not known is synced: durability first. The slack absorbs the rounding of
            // decode times (a fragment due at 2.0 s may end at 1.99997 s).
            let end = fragmentEnd ?? .infinity
            let interval = Double(syncInterval) / 1e9
            let slack = min(interval / 4, 0.05)
            if end + slack >= syncDue {
                syncs += 1
                action.syncAfter = true
                if end.isFinite, interval > 0 { syncDue = (((end + slack) / interval).rounded(.down) + 1) * interval }
            }
        }
        previous = current
    }
}

extension FragmentStreamWatch {
    /// Track ID → kind and timescale, and the `trex` defaults, from the `moov` the muxer starts with.
    private mutating func readTracks(moov: Data) {
        guard let root = try? Mp4Box.children(of: moov, in: 0..<moov.count).first,
            let children = try? Mp4Box.children(of: moov, in: root.payload)
        else { return }
        tracks = Mp4Tracks.read(moov: moov, children: children)
        if let mvex = children.first(where: { $0.type == "mvex" }) {
            trackDefaults = (try? Mp4Fragments.defaults(mvex: mvex, in: moov)) ?? [:]
        }
    }

    /// How far a track starts after the origin (ns), when its start is known.
    package static func delay(of kind: TrackKind, starts: Starts, origin: UInt64) -> UInt64? {
        let start: UInt64? =
            switch kind {
            case .video: starts.video
            case .audio: starts.audio
            case .other: nil
            }
        return start.map { $0 > origin ? $0 - origin : 0 }
    }

    /// Moves the `tfdt` of each `traf` in a `moof` (at `start` in the buffer) by its track's delay; returns the
    /// media time (s) at which the fragment ends, nil if the `moof` cannot be read.
    private mutating func inspect(moof: Data, at start: Int, starts: Starts, into action: inout Action) -> Double? {
        // The origin is the earliest start known at the first `moof`: a track not started by then starts later.
        if origin == nil { origin = [starts.video, starts.audio].compactMap { $0 }.min() }
        guard let root = try? Mp4Box.children(of: moof, in: 0..<moof.count).first,
            let trafs = try? Mp4Box.children(of: moof, in: root.payload).filter({ $0.type == "traf" }),
            let stated = try? Mp4Fragments.trackFragments(moof: moof, moofOffset: 0, defaults: trackDefaults)
        else {
            unpatched += 1
            action.unpatchedMoofs += 1
            return nil
        }
        var end: Double?
        for (traf, fragment) in zip(trafs, stated) {
            guard let track = tracks[fragment.trackID], track.timescale > 0, let decodeTime = fragment.decodeTime else {
                continue
            }
            let duration = fragment.runs.reduce(UInt64(0)) {
                $0 + $1.entries.reduce(UInt64(0)) { $0 + UInt64($1.duration ?? 0) }
            }
            var delayUnits: UInt64 = 0
            if let origin, let delay = Self.delay(of: track.kind, starts: starts, origin: origin), delay > 0 {
                delayUnits = (delay * track.timescale + 500_000_000) / 1_000_000_000
                if let patch = Self.movedDecodeTime(traf: traf, in: moof, at: start, by: delayUnits) {
                    action.patches.append(patch)
                } else {
                    unpatched += 1
                    action.unpatchedMoofs += 1
                }
            }
            end = max(end ?? 0, Double(decodeTime + delayUnits + duration) / Double(track.timescale))
        }
        return end
    }

    /// The bytes that move a `traf`'s `tfdt` by `units`; nil when there is none, or a 32-bit one would overflow.
    private static func movedDecodeTime(traf: Mp4Box, in moof: Data, at start: Int, by units: UInt64) -> Patch? {
        guard let tfdt = try? Mp4Box.child("tfdt", of: traf, in: moof) else { return nil }
        let wide = tfdt.version(in: moof) == 1
        let at = tfdt.payload.lowerBound + 4
        guard tfdt.payload.count >= (wide ? 12 : 8) else { return nil }
        let value = (wide ? moof.uint64(at: at) : UInt64(moof.uint32(at: at))) + units
        guard wide || value <= UInt64(UInt32.max) else { return nil }
        var bytes = Data()
        if wide { bytes.append(bigEndian: value) } else { bytes.append(bigEndian: UInt32(value)) }
        return Patch(offset: start + at, bytes: Array(bytes))
    }
}
