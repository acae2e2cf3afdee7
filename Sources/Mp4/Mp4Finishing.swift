import ApplianceBase
import Foundation

/// Turns whatever a recording left on disk into a finished MP4, in place, writing only an index.
///
/// The recording bin writes fragments in mp4mux's DASH mode, front to back: `ftyp`, a `moov` that describes the
/// tracks (with `mvex`, no samples), then for each fragment a `moof` and the `mdat` it indexes. Nothing finishes
/// that at EOS (mp4mux thinks it is streaming), so every recording is finished here, after EOS or, after a crash,
/// at start-up: the samples of every whole fragment become one index appended after the last one, and one 16-byte
/// write over the start of the first `moov` (`free`(8) + an `mdat` header, or a 16-byte `mdat` header) turns
/// everything from there to the index into media: the file becomes `ftyp free mdat moov`, and no media moves. A
/// crash in between leaves a fragmented file with an index at its end, which the next try cuts off and redoes.
///
/// Files of earlier versions are finished too: mp4mux's `first-moov-then-finalise` layout (`ftyp free mdat moov`
/// with the first fragment, then `free mdat moof` per fragment, the index after its media; or, finished by mp4mux,
/// the first index hidden as `hoov` in one long `mdat`), and the reserved-index layout, whose unused index room is
/// removed (Mp4Compaction).
package enum Mp4Finishing {
    package enum Failure: Error, CustomStringConvertible {
        case unreadable(String)
        case unexpectedLayout(String)
        package var description: String {
            switch self {
            case .unreadable(let why): "cannot read the file: \(why)"
            case .unexpectedLayout(let why): "not an MP4 layout this handles: \(why)"
            }
        }
    }

    package enum Outcome: Equatable {
        /// Already a finished file; nothing was written.
        case finished
        /// A reserved-index file whose unused room was removed (bytes).
        case compacted(Int64)
        /// A fragmented file now indexed: its samples, the bytes after the last whole fragment that no index covered
        /// (dropped), and why indexing stopped before the end of the file (a fragment whose samples could not be
        /// worked out: it and what follows are dropped rather than indexed wrongly), if it did.
        case indexed(samples: Int, droppedBytes: Int64, refused: String? = nil)
        /// No frame can be recovered: nothing in the file is indexed, or only sound. Nothing was written.
        case empty
    }

    /// How far into the first `mdat` to look for the first index that an interrupted finish hid.
    static let hiddenIndexSearchLimit: Int64 = 512 << 20

    @discardableResult
    package static func finish(path: String) throws -> Outcome {
        let file = try Mp4File(path: path)
        defer { file.close() }
        var top = try file.topLevel()
        // Still fragmented (its first index is visible), whatever else a finish may have appended already.
        if let initial = top.initialMoov { return try indexFragments(file, top: top, initial: initial) }
        if let moov = top.moovs.first(where: { !$0.fragmented }) {
            // A complete index: after the media (finished), or in front with reserved room (compact it).
            if let mdat = top.first("mdat"), moov.box.offset < mdat.offset {
                file.close()
                return .compacted(try Mp4Compaction.compact(path: path))
            }
            return .finished
        }
        guard try restoreHiddenIndex(file, top) else { return .empty }
        top = try file.topLevel()
        guard let initial = top.initialMoov else { return .empty }
        return try indexFragments(file, top: top, initial: initial)
    }

    /// Indexes the samples of the first index and of every whole fragment after it, and makes the file a finished
    /// one.
    private static func indexFragments(_ file: Mp4File, top: Mp4File.TopLevel, initial: Mp4Box) throws -> Outcome {
        let moov = try file.read(initial)
        var (samples, defaults) = try initialSamples(moov)
        let walk = try Mp4FragmentWalk.run(file, top: top, after: initial, defaults: defaults)
        var firstDecodeTime: [UInt32: UInt64] = [:]
        for fragment in walk.fragments {
            if samples[fragment.trackID, default: []].isEmpty, let time = fragment.decodeTime {
                firstDecodeTime[fragment.trackID] = time
            }
            samples[fragment.trackID, default: []].append(contentsOf: fragment.samples)
        }
        let count = samples.values.reduce(0) { $0 + $1.count }
        // Sound without a picture (a crash, or a full card, before the first video fragment was whole) is no clip.
        let root = try Mp4Box.children(of: moov, in: 0..<moov.count)[0]
        let videoTracks = Mp4Tracks.read(moov: moov, children: try Mp4Box.children(of: moov, in: root.payload)).filter {
            $0.value.kind == .video
        }.keys
        guard count > 0, videoTracks.isEmpty || videoTracks.contains(where: { !(samples[$0] ?? []).isEmpty }) else {
            return .empty
        }
        let index = try Mp4IndexBuilder.finalMoov(initial: moov, samples: samples, startTimes: firstDecodeTime)
        let end = walk.end
        let dropped = file.size - end
        // The index first, made durable; then one write in front that makes it the file's index.
        try file.truncate(at: end)
        try file.write(index, at: end)
        try file.sync()
        // DASH layout: the first index is before any media; the earlier layout keeps 16 bytes after ftyp for this.
        let mediaFrom = walk.indexBeforeMedia ? Int64(initial.offset) : top.ftypEnd
        try file.writeMdatHeader(at: mediaFrom, payloadEnd: end)
        try file.sync()
        return .indexed(samples: count, droppedBytes: dropped, refused: walk.refused)
    }

    /// The samples the first index lists (the first fragment, in the earlier layout; none in the DASH layout) and
    /// the `trex` defaults of its `mvex`.
    static func initialSamples(_ moov: Data) throws -> ([UInt32: [Mp4Sample]], [UInt32: Mp4Fragments.TrackDefaults]) {
        let root = try Mp4Box.children(of: moov, in: 0..<moov.count)[0]
        let children = try Mp4Box.children(of: moov, in: root.payload)
        var samples: [UInt32: [Mp4Sample]] = [:]
        for trak in children where trak.type == "trak" {
            guard let tkhd = try Mp4Box.child("tkhd", of: trak, in: moov),
                let stbl = try stbl(of: trak, in: moov)
            else { throw Failure.unexpectedLayout("a trak without tkhd or stbl") }
            let id = try tkhd.field(in: moov, v0: 12, v1: 20)
            samples[id] = try Mp4SampleTable.samples(stbl: stbl, in: moov)
        }
        let defaults =
            try children.first { $0.type == "mvex" }.map { try Mp4Fragments.defaults(mvex: $0, in: moov) } ?? [:]
        return (samples, defaults)
    }

    package static func stbl(of trak: Mp4Box, in data: Data) throws -> Mp4Box? {
        guard let mdia = try Mp4Box.child("mdia", of: trak, in: data),
            let minf = try Mp4Box.child("minf", of: mdia, in: data)
        else { return nil }
        return try Mp4Box.child("stbl", of: minf, in: data)
    }

    /// mp4mux's own finish hides the first index (`moov` → `hoov`) and stretches the first `mdat` over it before it
    /// writes the full index; a crash in between leaves no visible index. Undoes the first two steps so the file is
    /// fragmented again. Returns false when there is no hidden index (nothing was ever indexed).
    private static func restoreHiddenIndex(_ file: Mp4File, _ top: Mp4File.TopLevel) throws -> Bool {
        if let hoov = top.boxes.first(where: { $0.type == "hoov" }) {
            try file.write(Data("moov".utf8), at: Int64(hoov.offset + 4))
            return true
        }
        guard let mdat = top.first("mdat") ?? top.tail.flatMap({ $0.type == "mdat" ? $0 : nil }) else { return false }
        guard
            let hidden = try file.findHiddenIndex(
                from: Int64(mdat.payload.lowerBound),
                to: min(file.size, Int64(mdat.payload.lowerBound) + hiddenIndexSearchLimit))
        else {
            return false
        }
        try file.writeMdatHeader(at: top.ftypEnd, payloadEnd: hidden)
        try file.write(Data("moov".utf8), at: hidden + 4)
        try file.sync()
        return true
    }
}
