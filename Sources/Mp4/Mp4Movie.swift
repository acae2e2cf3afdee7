import Foundation

/// A finished MP4's index, read (never written) for an index over several files: each track's samples with their
/// absolute offsets in the file, when the track starts in the movie, and its sample description, which must be the
/// same in every file one index covers.
package struct Mp4Movie {
    package struct Track {
        package var id: UInt32
        package var kind: Mp4Tracks.Kind
        package var timescale: UInt64
        package var samples: [Mp4Sample]
        /// Seconds of empty edit before the track's first sample (sound usually starts a few milliseconds after
        /// the picture).
        package var start: Double
        /// The `stsd` box, byte for byte.
        package var description: Data

        /// When each sample starts, in seconds from the start of the movie.
        var sampleStarts: [Double] {
            var time = UInt64(0)
            return samples.map { sample in
                defer { time += UInt64(sample.duration) }
                return start + Double(time) / Double(timescale)
            }
        }

        package var end: Double {
            start + Double(samples.reduce(UInt64(0)) { $0 + UInt64($1.duration) }) / Double(timescale)
        }
    }

    package var ftyp: Data
    package var moov: Data
    package var tracks: [Track]

    package var video: Track? { tracks.first { $0.kind == .video } }

    /// Reads the index of a finished file; a file still being written (fragmented) is refused.
    package static func read(path: String) throws -> Mp4Movie {
        let file = try Mp4File(path: path, readOnly: true)
        defer { file.close() }
        let top = try file.topLevel()
        guard let ftypBox = top.first("ftyp") else { throw Mp4Finishing.Failure.unexpectedLayout("no ftyp") }
        guard top.initialMoov == nil, let moovBox = top.moovs.first?.box else {
            throw Mp4Finishing.Failure.unexpectedLayout("not a finished file")
        }
        let moov = try file.read(moovBox)
        let (samples, _) = try Mp4Finishing.initialSamples(moov)
        let root = try Mp4Box.children(of: moov, in: 0..<moov.count)[0]
        let children = try Mp4Box.children(of: moov, in: root.payload)
        guard let mvhd = children.first(where: { $0.type == "mvhd" }) else {
            throw Mp4Finishing.Failure.unexpectedLayout("no mvhd")
        }
        let movieTimescale = Double(moov.uint32(at: mvhd.payload.lowerBound + (mvhd.version(in: moov) == 1 ? 20 : 12)))
        let kinds = Mp4Tracks.read(moov: moov, children: children)
        var tracks: [Track] = []
        for trak in children where trak.type == "trak" {
            guard let tkhd = try Mp4Box.child("tkhd", of: trak, in: moov),
                let stbl = try Mp4Finishing.stbl(of: trak, in: moov),
                let stsd = try Mp4Box.child("stsd", of: stbl, in: moov)
            else { continue }
            let id = moov.uint32(at: tkhd.payload.lowerBound + (tkhd.version(in: moov) == 1 ? 20 : 12))
            guard let kind = kinds[id], movieTimescale > 0 else { continue }
            let empty =
                try Mp4Box.child("edts", of: trak, in: moov).map { try Mp4IndexBuilder.emptyEditDuration($0, moov) }
                ?? 0
            tracks.append(
                Track(
                    id: id, kind: kind.kind, timescale: kind.timescale, samples: samples[id] ?? [],
                    start: Double(empty) / movieTimescale, description: Data(moov[stsd.offset..<stsd.end])))
        }
        return Mp4Movie(ftyp: try file.read(ftypBox), moov: moov, tracks: tracks)
    }

    /// Whether `other`'s samples can be listed in this movie's index: the same tracks, timescales and descriptions
    /// (but for the bitrates they state, which differ from file to file and tell a decoder nothing).
    func accepts(_ other: Mp4Movie) -> Bool {
        tracks.count == other.tracks.count
            && zip(tracks, other.tracks).allSatisfy { mine, theirs in
                mine.id == theirs.id && mine.kind == theirs.kind && mine.timescale == theirs.timescale
                    && Self.withoutBitrates(mine.description) == Self.withoutBitrates(theirs.description)
            }
    }

    /// A sample description with the bitrates of its `btrt` boxes and of its `esds` decoder config set to 0.
    package static func withoutBitrates(_ description: Data) -> Data {
        var bytes = Data(description)
        func zero(_ range: Range<Int>) {
            guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return }
            bytes.replaceSubrange(
                (bytes.startIndex + range.lowerBound)..<(bytes.startIndex + range.upperBound),
                with: Data(count: range.count))
        }
        for (type, size, at) in boxes(named: ["btrt", "esds"], in: bytes) {
            if type == "btrt" {
                zero((at + 8)..<(at + size))
                continue
            }
            // esds: version and flags, then ES_Descriptor (tag 3: id, flags) holding DecoderConfigDescriptor (tag 4:
            // object type, stream type, then buffer size (3 bytes), max and average bitrate (4 bytes each)).
            var p = at + 12
            guard let es = descriptor(in: bytes, at: &p, tag: 3) else { continue }
            let flags = bytes[bytes.startIndex + es + 2]
            p = es + 3 + (flags & 0x80 != 0 ? 2 : 0) + (flags & 0x20 != 0 ? 2 : 0)
            if flags & 0x40 != 0, p < bytes.count { p += 1 + Int(bytes[bytes.startIndex + p]) }
            guard let config = descriptor(in: bytes, at: &p, tag: 4) else { continue }
            zero((config + 2)..<(config + 13))
        }
        return bytes
    }

    /// Every box of one of `names` inside `data` (found by type, checked by size): type, size and offset.
    private static func boxes(named names: Set<String>, in data: Data) -> [(String, Int, Int)] {
        var found: [(String, Int, Int)] = []
        var i = 4
        while i + 4 <= data.count {
            let type = data.fourCC(at: i)
            if names.contains(type) {
                let size = Int(data.uint32(at: i - 4))
                if size >= 8, i - 4 + size <= data.count { found.append((type, size, i - 4)) }
            }
            i += 1
        }
        return found
    }

    /// Where the content of the descriptor with `tag` at `p` starts (its length's 7-bit bytes skipped), or nil.
    private static func descriptor(in data: Data, at p: inout Int, tag: UInt8) -> Int? {
        guard p < data.count, data[data.startIndex + p] == tag else { return nil }
        p += 1
        for _ in 0..<4 {
            guard p < data.count else { return nil }
            let byte = data[data.startIndex + p]
            p += 1
            if byte & 0x80 == 0 { break }
        }
        return p
    }
}
