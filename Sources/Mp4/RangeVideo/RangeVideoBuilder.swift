import Foundation

/// Builds a `RangeVideo` from finished files in time order. Each track's samples are listed one file after another;
/// at each file boundary the previous file's last sample of a track is lengthened or shortened so that the next
/// file's samples start exactly where that file places them against its picture (sound starts a few milliseconds
/// after the picture in each file): sound stays in step with the picture over any number of files, and a gap
/// between files is left out rather than shown as a frozen picture.
package struct RangeVideoBuilder {
    package struct Source: Sendable {
        package var id: String
        package var path: String
        /// The wall-clock time of the file's first frame (`Recording.mediaStart`).
        package var start: Date

        package init(id: String, path: String, start: Date) {
            self.id = id
            self.path = path
            self.start = start
        }
    }

    package let from: Date
    package let to: Date
    /// A file that starts this little before the previous one ended continues it (wall times are stored to the
    /// millisecond and taken at slightly different moments); more than this and only its later keyframes are used.
    static let overlapTolerance = 0.25

    private var reference: Mp4Movie?
    private var samples: [UInt32: [Mp4Sample]] = [:]
    /// By track: decode time of the first sample and of the end, in the track's timescale.
    private var firstTimes: [UInt32: UInt64] = [:]
    private var ends: [UInt32: UInt64] = [:]
    private var stretches: [(path: String, offset: Int64, length: Int64)] = []
    private var payload: Int64 = 0
    /// Video time (seconds) of the current file's own time 0.
    private var origin = 0.0
    private var pieces: [RangeVideo.Piece] = []

    package init(from: Date, to: Date) {
        (self.from, self.to) = (from, to)
    }

    /// Adds a file's samples that fall in the range. Returns false when nothing after this file can be added: it
    /// reaches the end of the range, or its tracks differ from the first file's (another size or encoder), which
    /// one index cannot describe.
    package mutating func add(_ source: Source, movie: Mp4Movie) -> Bool {
        guard let video = movie.video, !video.samples.isEmpty else { return true }
        if let reference, !reference.accepts(movie) { return false }
        let starts = video.sampleStarts
        let localTo = to.timeIntervalSince(source.start)
        let wanted =
            pieces.last.map {
                $0.start.addingTimeInterval($0.duration).timeIntervalSince(source.start) - Self.overlapTolerance
            }
            ?? from.timeIntervalSince(source.start)
        let first: Int?
        if pieces.isEmpty {
            first =
                starts.indices.last { video.samples[$0].isSync && starts[$0] <= max(wanted, 0) + 0.0005 }
                ?? video.samples.firstIndex { $0.isSync }
        } else {
            first = starts.indices.first { video.samples[$0].isSync && starts[$0] >= wanted }
        }
        guard let first, let last = starts.lastIndex(where: { $0 < localTo }), last >= first else {
            return pieces.isEmpty || starts[0] < localTo
        }
        let cutStart = starts[first]
        let cutEnd = starts[last] + Double(video.samples[last].duration) / Double(video.timescale)
        if pieces.isEmpty { origin = -cutStart }
        var extent: (low: Int64, high: Int64) = (.max, .min)
        var chosen: [(Mp4Movie.Track, ArraySlice<Mp4Sample>, Double)] = []
        for track in movie.tracks {
            let trackStarts = track.id == video.id ? starts : track.sampleStarts
            let range =
                track.id == video.id
                ? first..<(last + 1)
                : (trackStarts.firstIndex { $0 >= cutStart - 0.001 } ?? trackStarts.count)..<(trackStarts.firstIndex {
                    $0 >= cutEnd
                } ?? trackStarts.count)
            guard !range.isEmpty else { continue }
            for sample in track.samples[range] {
                extent = (min(extent.low, sample.offset), max(extent.high, sample.offset + Int64(sample.size)))
            }
            chosen.append((track, track.samples[range], trackStarts[range.lowerBound]))
        }
        for (track, list, start) in chosen { append(track, list, at: origin + start, fileLow: extent.low) }
        stretches.append((source.path, extent.low, extent.high - extent.low))
        payload += extent.high - extent.low
        pieces.append(
            RangeVideo.Piece(
                recordingId: source.id, offset: origin + cutStart, start: source.start.addingTimeInterval(cutStart),
                duration: cutEnd - cutStart, recordingStart: source.start))
        origin += cutEnd
        reference = reference ?? movie
        return cutEnd < localTo
    }

    /// Lists `list` in its track at video time `time` (seconds), first moving the end of what the track already
    /// has to that time.
    private mutating func append(
        _ track: Mp4Movie.Track, _ list: ArraySlice<Mp4Sample>, at time: Double, fileLow: Int64
    ) {
        let target = UInt64(max(0, (time * Double(track.timescale)).rounded()))
        if let end = ends[track.id], var listed = samples[track.id], let last = listed.last {
            let duration = UInt32(clamping: max(1, Int64(last.duration) + Int64(target) - Int64(end)))
            ends[track.id] = end - UInt64(last.duration) + UInt64(duration)
            listed[listed.count - 1].duration = duration
            samples[track.id] = listed
        } else {
            firstTimes[track.id] = target
            ends[track.id] = target
        }
        let shift = payload - fileLow
        samples[track.id, default: []].append(
            contentsOf: list.map { sample in
                var moved = sample
                moved.offset += shift
                return moved
            })
        ends[track.id, default: 0] += list.reduce(UInt64(0)) { $0 + UInt64($1.duration) }
    }

    /// The index and the parts: `ftyp`, `moov` (sample offsets point past the `mdat` header), the header, and the
    /// stretches of the files.
    package func build() throws -> RangeVideo {
        guard let reference, !pieces.isEmpty else { throw RangeVideo.Failure.nothingRecorded }
        let mdatHeader = Self.mdatHeader(payload: payload)
        var base = Int64(reference.ftyp.count + mdatHeader.count)
        var moov = Data()
        // The index's size depends on its offsets (32- or 64-bit) and they on its size: built until they agree
        // (twice; three times when the offsets' width changed).
        repeat {
            let moved = samples.mapValues { list in
                list.map { sample in
                    var s = sample
                    s.offset += base
                    return s
                }
            }
            moov = try Mp4IndexBuilder.finalMoov(
                initial: reference.moov, samples: moved, startTimes: firstTimes, replacingEditLists: true)
            let next = Int64(reference.ftyp.count + moov.count + mdatHeader.count)
            if next == base { break }
            base = next
        } while true
        var parts: [RangeVideo.Part] = [.bytes(reference.ftyp + moov + mdatHeader)]
        parts += stretches.map { .file(path: $0.path, offset: $0.offset, length: $0.length) }
        return RangeVideo(parts: parts, pieces: pieces)
    }

    static func mdatHeader(payload: Int64) -> Data {
        var header = Data()
        if payload + 8 <= Int64(UInt32.max) {
            header.append(bigEndian: UInt32(payload + 8))
            header.append(fourCC: "mdat")
        } else {
            header.append(bigEndian: UInt32(1))
            header.append(fourCC: "mdat")
            header.append(bigEndian: UInt64(payload + 16))
        }
        return header
    }
}
