import Foundation

/// Follows, box by box, the bytes mp4mux hands the recording's filesink, and says what to do with each buffer.
///
/// The recording bin runs mp4mux in its DASH fragment mode behind a sink that answers "not seekable", so the file is
/// written front to back and never rewritten: `ftyp`, a `moov` that describes the tracks (no samples), then for each
/// stream's fragment a `moof` (its index) followed by the `mdat` with its media. Two things are done on the way:
/// - **Syncs.** A fragment is whole on disk once its `mdat`'s last byte is written. At the end of a fragment the
///   buffer that completes it is marked for an fsync, but at most once per `syncInterval`: a still, noisy scene
///   (or an encoder with ideas of its own) can make a fragment per keyframe, several a second, and a sync for each
///   would write the card's partly filled last page again every time.
/// - **Where each track starts.** mp4mux's fragment decode times (`tfdt`) count from each track's own first sample,
///   so a track that starts later than the other (audio starts on the first AAC frame after the first video
///   frame: up to one AAC frame later) would lose that offset. The later track's `tfdt`s are moved by it, so the
///   file itself says when each track starts, even if the daemon dies before it is finished.
///
/// A pure value: buffers, their bytes and the time are passed in (FragmentStreamWatchTests).
struct FragmentStreamWatch: Sendable {
    /// Bytes to write over the buffer: `offset` is from the buffer's start.
    struct Patch: Equatable, Sendable {
        var offset: Int
        var bytes: [UInt8]
    }

    /// What to do with one buffer.
    struct Action: Equatable, Sendable {
        var syncAfter = false
        var patches: [Patch] = []
        /// Fragments this buffer completed.
        var completedFragments = 0
        /// `moof`s in this buffer whose track start could not be written.
        var unpatchedMoofs = 0
    }

    /// Running times (ns) at which the tracks start, as the recording's cut knows them (nil: not yet).
    struct Starts: Equatable, Sendable {
        var video: UInt64?
        var audio: UInt64?
    }

    enum TrackKind: Sendable { case video, audio, other }

    struct Track: Equatable, Sendable {
        var kind: TrackKind
        var timescale: UInt64
    }

    let syncInterval: UInt64
    /// Fragments whose media has been handed to the sink whole.
    private(set) var fragments = 0
    /// Buffers marked for a sync.
    private(set) var syncs = 0
    /// `moof`s whose start offset could not be written (split across buffers, or a `tfdt` that would overflow).
    private(set) var unpatched = 0
    private(set) var tracks: [UInt32: Track] = [:]
    /// Running time (ns) the tracks' `tfdt`s count from: the earliest track start known at the first `moof`.
    private(set) var origin: UInt64?

    private var remaining: Int64 = 0
    private var current = ""
    private var previous = ""
    private var pendingHeader: [UInt8] = []
    private var lastSync: UInt64?

    init(syncInterval: UInt64) { self.syncInterval = syncInterval }

    /// One buffer of `size` bytes on its way to the file; `read(offset, count)` gives its bytes, `now` is a monotonic
    /// time in ns.
    mutating func next(size: Int, now: UInt64, starts: Starts, read: (Int, Int) -> [UInt8]) -> Action {
        var action = Action()
        var position = 0
        while position < size {
            if remaining == 0 {
                guard openBox(at: position, size: size, starts: starts, read: read, into: &action) else { break }
            }
            let take = Int(min(remaining, Int64(size - position)))
            position += take
            remaining -= Int64(take)
            if remaining == 0 { closeBox(now: now, into: &action) }
        }
        return action
    }

    /// Reads the header of the box starting at `position` (or completing one split across buffers) and handles an
    /// index box; false when the buffer ends inside the header (kept for the next buffer).
    private mutating func openBox(at position: Int, size: Int, starts: Starts, read: (Int, Int) -> [UInt8],
                                  into action: inout Action) -> Bool {
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
        if current == "moov" || current == "moof" {
            if carried == 0, Int64(start) + boxSize <= Int64(size) {
                let box = Data(read(start, Int(boxSize)))
                if current == "moov" { tracks = Self.tracks(moov: box) } else { patchStarts(moof: box, at: start, starts: starts, into: &action) }
            } else if current == "moof" {
                unpatched += 1
                action.unpatchedMoofs += 1
            }
        }
        return true
    }

    private mutating func closeBox(now: UInt64, into action: inout Action) {
        if current == "mdat", previous == "moof" {
            fragments += 1
            action.completedFragments += 1
            if lastSync.map({ now >= $0 && now - $0 >= syncInterval }) ?? true {
                lastSync = now
                syncs += 1
                action.syncAfter = true
            }
        }
        previous = current
    }
}

extension FragmentStreamWatch {
    /// Track ID → kind and timescale, from the `moov` the muxer starts with.
    static func tracks(moov: Data) -> [UInt32: Track] {
        var result: [UInt32: Track] = [:]
        guard let root = try? Mp4Box.children(of: moov, in: 0..<moov.count).first,
              let children = try? Mp4Box.children(of: moov, in: root.payload) else { return result }
        for trak in children where trak.type == "trak" {
            guard let tkhd = try? Mp4Box.child("tkhd", of: trak, in: moov),
                  let mdia = try? Mp4Box.child("mdia", of: trak, in: moov),
                  let mdhd = try? Mp4Box.child("mdhd", of: mdia, in: moov),
                  let hdlr = try? Mp4Box.child("hdlr", of: mdia, in: moov), hdlr.payload.count >= 12 else { continue }
            let id = moov.uint32(at: tkhd.payload.lowerBound + (tkhd.version(in: moov) == 1 ? 20 : 12))
            let timescale = UInt64(moov.uint32(at: mdhd.payload.lowerBound + (mdhd.version(in: moov) == 1 ? 20 : 12)))
            let kind: TrackKind = switch moov.fourCC(at: hdlr.payload.lowerBound + 8) {
            case "vide": .video
            case "soun": .audio
            default: .other
            }
            result[id] = Track(kind: kind, timescale: timescale)
        }
        return result
    }

    /// How far a track starts after the origin (ns), when its start is known.
    static func delay(of kind: TrackKind, starts: Starts, origin: UInt64) -> UInt64? {
        let start: UInt64? = switch kind {
        case .video: starts.video
        case .audio: starts.audio
        case .other: nil
        }
        return start.map { $0 > origin ? $0 - origin : 0 }
    }

    /// Moves the `tfdt` of each `traf` in a `moof` (at `start` in the buffer) by its track's delay.
    private mutating func patchStarts(moof: Data, at start: Int, starts: Starts, into action: inout Action) {
        // The origin is the earliest start known at the first `moof`: a track not started by then starts later.
        if origin == nil { origin = [starts.video, starts.audio].compactMap { $0 }.min() }
        guard let origin else { return }
        guard let root = try? Mp4Box.children(of: moof, in: 0..<moof.count).first,
              let trafs = try? Mp4Box.children(of: moof, in: root.payload).filter({ $0.type == "traf" }) else {
            unpatched += 1
            action.unpatchedMoofs += 1
            return
        }
        for traf in trafs {
            guard let children = try? Mp4Box.children(of: moof, in: traf.payload),
                  let tfhd = children.first(where: { $0.type == "tfhd" }), tfhd.payload.count >= 8,
                  let tfdt = children.first(where: { $0.type == "tfdt" }) else { continue }
            let id = moof.uint32(at: tfhd.payload.lowerBound + 4)
            guard let track = tracks[id], let delay = Self.delay(of: track.kind, starts: starts, origin: origin), delay > 0 else { continue }
            let units = (delay * track.timescale + 500_000_000) / 1_000_000_000
            let wide = tfdt.version(in: moof) == 1
            let at = tfdt.payload.lowerBound + 4
            guard tfdt.payload.count >= (wide ? 12 : 8) else { continue }
            let value = (wide ? moof.uint64(at: at) : UInt64(moof.uint32(at: at))) + units
            guard wide || value <= UInt64(UInt32.max) else {
                unpatched += 1
                action.unpatchedMoofs += 1
                continue
            }
            var bytes = Data()
            if wide { bytes.append(bigEndian: value) } else { bytes.append(bigEndian: UInt32(value)) }
            action.patches.append(Patch(offset: start + at, bytes: Array(bytes)))
        }
    }
}
