import Foundation

/// A finished MP4's index, read (never written) for an index over several files: each track's samples with their
/// absolute offsets in the file, when the track starts in the movie, and its sample description, which must be the
/// same in every file one index covers.
struct Mp4Movie {
    struct Track {
        var id: UInt32
        var kind: Mp4Tracks.Kind
        var timescale: UInt64
        var samples: [Mp4Sample]
        /// Seconds of empty edit before the track's first sample (sound usually starts a few milliseconds after
        /// the picture).
        var start: Double
        /// The `stsd` box, byte for byte.
        var description: Data

        /// When each sample starts, in seconds from the start of the movie.
        var sampleStarts: [Double] {
            var time = UInt64(0)
            return samples.map { sample in
                defer { time += UInt64(sample.duration) }
                return start + Double(time) / Double(timescale)
            }
        }

        var end: Double { start + Double(samples.reduce(UInt64(0)) { $0 + UInt64($1.duration) }) / Double(timescale) }
    }

    var ftyp: Data
    var moov: Data
    var tracks: [Track]

    var video: Track? { tracks.first { $0.kind == .video } }

    /// Reads the index of a finished file; a file still being written (fragmented) is refused.
    static func read(path: String) throws -> Mp4Movie {
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
        guard let mvhd = children.first(where: { $0.type == "mvhd" }) else { throw Mp4Finishing.Failure.unexpectedLayout("no mvhd") }
        let movieTimescale = Double(moov.uint32(at: mvhd.payload.lowerBound + (mvhd.version(in: moov) == 1 ? 20 : 12)))
        let kinds = Mp4Tracks.read(moov: moov, children: children)
        var tracks: [Track] = []
        for trak in children where trak.type == "trak" {
            guard let tkhd = try Mp4Box.child("tkhd", of: trak, in: moov), let stbl = try Mp4Finishing.stbl(of: trak, in: moov),
                  let stsd = try Mp4Box.child("stsd", of: stbl, in: moov) else { continue }
            let id = moov.uint32(at: tkhd.payload.lowerBound + (tkhd.version(in: moov) == 1 ? 20 : 12))
            guard let kind = kinds[id], movieTimescale > 0 else { continue }
            let empty = try Mp4Box.child("edts", of: trak, in: moov).map { try Mp4IndexBuilder.emptyEditDuration($0, moov) } ?? 0
            tracks.append(Track(id: id, kind: kind.kind, timescale: kind.timescale, samples: samples[id] ?? [],
                                start: Double(empty) / movieTimescale, description: Data(moov[stsd.offset..<stsd.end])))
        }
        return Mp4Movie(ftyp: try file.read(ftypBox), moov: moov, tracks: tracks)
    }

    /// Whether `other`'s samples can be listed in this movie's index: the same tracks, timescales and descriptions.
    func accepts(_ other: Mp4Movie) -> Bool {
        tracks.count == other.tracks.count && zip(tracks, other.tracks).allSatisfy { mine, theirs in
            mine.id == theirs.id && mine.kind == theirs.kind && mine.timescale == theirs.timescale && mine.description == theirs.description
        }
    }
}
