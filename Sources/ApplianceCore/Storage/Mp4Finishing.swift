import Foundation

/// Turns whatever a recording left on disk into a finished MP4, in place, writing only an index.
///
/// The recording bin writes fragments (`mp4mux fragment-mode=first-moov-then-finalise`): `ftyp`, an `mdat` with
/// the first fragment's media, a `moov` that indexes it (with `mvex`), then a `moof` after each further fragment's
/// `mdat`. mp4mux finishes such a file itself at EOS: it hides the first `moov` (renamed `hoov`), stretches the
/// first `mdat` over everything, and appends a full `moov`; the media is never copied. A file that did not get
/// there (a crash, a power cut, a write failure) is finished here the same way: the samples of the first `moov`
/// and of every complete `moof` become one index appended after the last complete fragment, and one 16-byte write
/// in front turns the file from fragmented to finished. A crash during that leaves a fragmented file that the next
/// try finishes again. A file from the reserved-index layout (index room in front) is compacted instead.
enum Mp4Finishing {
    enum Failure: Error, CustomStringConvertible {
        case unreadable(String)
        case unexpectedLayout(String)
        var description: String {
            switch self {
            case .unreadable(let why): "cannot read the file: \(why)"
            case .unexpectedLayout(let why): "not an MP4 layout this handles: \(why)"
            }
        }
    }

    enum Outcome: Equatable {
        /// Already a finished file; nothing was written.
        case finished
        /// A reserved-index file whose unused room was removed (bytes).
        case compacted(Int64)
        /// A fragmented file now indexed: its samples, and the bytes after the last complete fragment that no
        /// index covered (dropped).
        case indexed(samples: Int, droppedBytes: Int64)
        /// Nothing in the file is indexed: no frame can be recovered.
        case empty
    }

    /// How far into the first `mdat` to look for the first index that an interrupted finish hid.
    static let hiddenIndexSearchLimit: Int64 = 512 << 20

    @discardableResult
    static func finish(path: String) throws -> Outcome {
        let file = try Mp4File(path: path)
        defer { file.close() }
        var top = try file.topLevel()
        if let moov = top.moovs.first(where: { !$0.fragmented }) {
            // A complete index: after the media (finished), or in front with reserved room (compact it).
            if let mdat = top.first("mdat"), moov.box.offset < mdat.offset {
                file.close()
                return .compacted(try Mp4Compaction.compact(path: path))
            }
            return .finished
        }
        if top.initialMoov == nil {
            guard try restoreHiddenIndex(file, top) else { return .empty }
            top = try file.topLevel()
        }
        guard let initial = top.initialMoov else { return .empty }
        return try indexFragments(file, top: top, initial: initial)
    }

    /// Indexes the first fragment and every complete `moof` after it, and makes the file a finished one.
    private static func indexFragments(_ file: Mp4File, top: Mp4File.TopLevel, initial: Mp4Box) throws -> Outcome {
        let moov = try file.read(initial)
        let root = try Mp4Box.children(of: moov, in: 0..<moov.count)[0]
        let children = try Mp4Box.children(of: moov, in: root.payload)
        var samples: [UInt32: [Mp4Sample]] = [:]
        for trak in children where trak.type == "trak" {
            guard let tkhd = try Mp4Box.child("tkhd", of: trak, in: moov),
                  let stbl = try stbl(of: trak, in: moov) else { throw Failure.unexpectedLayout("a trak without tkhd or stbl") }
            let id = moov.uint32(at: tkhd.payload.lowerBound + (tkhd.version(in: moov) == 1 ? 20 : 12))
            samples[id] = try Mp4SampleTable.samples(stbl: stbl, in: moov)
        }
        let defaults = try children.first { $0.type == "mvex" }.map { try Mp4Fragments.defaults(mvex: $0, in: moov) } ?? [:]
        var end = Int64(initial.end)
        for box in top.boxes where box.offset > initial.offset {
            if box.type == "moov" { break }  // an index a finish began: rebuilt below
            guard box.type == "moof" else { continue }
            guard let fragment = try? Mp4Fragments.samples(moof: try file.read(box), moofOffset: Int64(box.offset), defaults: defaults),
                  fragment.values.allSatisfy({ $0.allSatisfy { s in s.offset >= 0 && s.offset + Int64(s.size) <= Int64(box.offset) } }) else {
                break  // a fragment that is not whole: the file ends before it
            }
            for (track, list) in fragment { samples[track, default: []].append(contentsOf: list) }
            end = Int64(box.end)
        }
        let count = samples.values.reduce(0) { $0 + $1.count }
        guard count > 0 else { return .empty }
        let index = try Mp4IndexBuilder.finalMoov(initial: moov, samples: samples)
        let dropped = file.size - end
        // The index first, made durable; then one write in front that makes it the file's index.
        try file.truncate(at: end)
        try file.write(index, at: end)
        try file.sync()
        try file.writeFirstMdatHeader(payloadEnd: end, after: top.ftypEnd)
        try file.sync()
        return .indexed(samples: count, droppedBytes: dropped)
    }

    private static func stbl(of trak: Mp4Box, in data: Data) throws -> Mp4Box? {
        guard let mdia = try Mp4Box.child("mdia", of: trak, in: data), let minf = try Mp4Box.child("minf", of: mdia, in: data) else { return nil }
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
        guard let hidden = try file.findHiddenIndex(from: Int64(mdat.payload.lowerBound),
                                                    to: min(file.size, Int64(mdat.payload.lowerBound) + hiddenIndexSearchLimit)) else {
            return false
        }
        try file.writeFirstMdatHeader(payloadEnd: hidden, after: top.ftypEnd)
        try file.write(Data("moov".utf8), at: hidden + 4)
        try file.sync()
        return true
    }
}
