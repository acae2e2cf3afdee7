import Foundation

/// Builds the index (`moov`) of a finished file from the `moov` a fragmented recording starts with and the samples
/// of every track: the same track headers, sample descriptions and metadata, with full sample tables, the durations
/// they add up to, and no `mvex` (the file is no longer fragmented). Chunk offsets are absolute, so the index can
/// go at the end of the file without moving any media.
enum Mp4IndexBuilder {
    private static let containers: Set<String> = ["trak", "mdia", "minf", "stbl", "edts"]

    /// `startTimes`: by track, the decode time its first fragment states (`tfdt`, in the track's timescale), for
    /// tracks whose samples all come from fragments. A track without an edit list that starts later than 0 (or
    /// whose first frame is shown after it is decoded) gets one: an empty edit for the start, then its media.
    /// `replacingEditLists`: the edit lists `moov` has are dropped and made from `startTimes` (an index over other
    /// samples than the ones they were written for).
    static func finalMoov(
        initial moov: Data, samples: [UInt32: [Mp4Sample]], startTimes: [UInt32: UInt64] = [:],
        replacingEditLists: Bool = false
    ) throws -> Data {
        guard let root = try Mp4Box.children(of: moov, in: 0..<moov.count).first,
            root.type == "moov" || root.type == "hoov"
        else {
            throw Mp4Finishing.Failure.unexpectedLayout("no moov to build on")
        }
        let children = try Mp4Box.children(of: moov, in: root.payload)
        guard let mvhd = children.first(where: { $0.type == "mvhd" }) else {
            throw Mp4Finishing.Failure.unexpectedLayout("no mvhd")
        }
        let movieTimescale = UInt64(try mvhd.field(in: moov, v0: 12, v1: 20))
        guard movieTimescale > 0 else { throw Mp4Finishing.Failure.unexpectedLayout("a movie timescale of 0") }

        // Each fragment-only track's start in the movie timescale, counted from the earliest (mp4mux's decode times
        // are off by a unit or so of rounding: the earliest track starts at 0).
        var starts: [UInt32: UInt64] = [:]
        for trak in children where trak.type == "trak" {
            let (id, mediaTimescale) = try trackIDAndTimescale(trak, moov)
            if let time = startTimes[id] {
                starts[id] = try rescaled(time, from: mediaTimescale, to: movieTimescale, what: "track \(id)'s start")
            }
        }
        let earliest = starts.values.min() ?? 0
        var traks: [Data] = []
        var movieDuration: UInt64 = 0
        for trak in children where trak.type == "trak" {
            let (id, _) = try trackIDAndTimescale(trak, moov)
            let (bytes, duration) = try rebuildTrak(
                trak, moov, movieTimescale: movieTimescale, samples: samples,
                start: starts[id].map { $0 - earliest } ?? 0, replacingEditLists: replacingEditLists)
            traks.append(bytes)
            movieDuration = max(movieDuration, duration)
        }
        var payload = Data()
        for child in children {
            switch child.type {
            case "mvhd": payload.append(try patched(child, moov, durationAt: (v0: 16, v1: 24), to: movieDuration))
            case "trak": payload.append(traks.removeFirst())
            case "mvex": break
            default: payload.append(moov[child.offset..<child.end])
            }
        }
        return mp4Box("moov", payload)
    }

    /// A trak's track ID (tkhd) and media timescale (mdhd).
    private static func trackIDAndTimescale(_ trak: Mp4Box, _ data: Data) throws -> (UInt32, UInt64) {
        guard let tkhd = try Mp4Box.child("tkhd", of: trak, in: data),
            let mdia = try Mp4Box.child("mdia", of: trak, in: data),
            let mdhd = try Mp4Box.child("mdhd", of: mdia, in: data)
        else {
            throw Mp4Finishing.Failure.unexpectedLayout("a trak without tkhd, mdia or mdhd")
        }
        let trackID = try tkhd.field(in: data, v0: 12, v1: 20)
        let mediaTimescale = UInt64(try mdhd.field(in: data, v0: 12, v1: 20))
        guard mediaTimescale > 0 else {
            throw Mp4Finishing.Failure.unexpectedLayout("track \(trackID) has a timescale of 0")
        }
        return (trackID, mediaTimescale)
    }

    /// One track with its full tables; returns the box and its duration in the movie timescale. `start`: when a
    /// track without an edit list starts, in the movie timescale.
    private static func rebuildTrak(
        _ trak: Mp4Box, _ data: Data, movieTimescale: UInt64,
        samples all: [UInt32: [Mp4Sample]], start: UInt64, replacingEditLists: Bool
    ) throws -> (Data, UInt64) {
        let (trackID, mediaTimescale) = try trackIDAndTimescale(trak, data)
        let samples = all[trackID] ?? []
        let mediaDuration = samples.reduce(UInt64(0)) { $0 + UInt64($1.duration) }
        let mediaInMovie = try rescaled(
            mediaDuration, from: mediaTimescale, to: movieTimescale, what: "track \(trackID)'s duration")
        let existingEdits = replacingEditLists ? nil : try Mp4Box.child("edts", of: trak, in: data)
        let newEdits =
            existingEdits == nil && (start > 0 || samples.first.map { $0.compositionOffset != 0 } == true)
            ? editList(start: start, mediaDuration: mediaInMovie, mediaTime: samples.first?.compositionOffset ?? 0)
            : nil
        let emptyEdits = try existingEdits.map { try emptyEditDuration($0, data) } ?? (newEdits == nil ? 0 : start)
        let (trackDuration, overflow) = emptyEdits.addingReportingOverflow(mediaInMovie)
        guard !overflow else {
            throw Mp4Finishing.Failure.unexpectedLayout("track \(trackID) lasts more than 2^64 units")
        }

        func rebuild(_ box: Mp4Box) throws -> Data {
            switch box.type {
            case "tkhd": return try patched(box, data, durationAt: (v0: 20, v1: 28), to: trackDuration)
            case "mdhd": return try patched(box, data, durationAt: (v0: 16, v1: 24), to: mediaDuration)
            case "elst": return try mediaEdit(box, data, duration: mediaInMovie)
            case "stbl":
                let children = try Mp4Box.children(of: data, in: box.payload)
                var payload = Data()
                for child in children where !Mp4SampleTable.tableTypes.contains(child.type) {
                    payload.append(data[child.offset..<child.end])
                }
                let hadSyncTable = children.contains { $0.type == "stss" }
                for table in Mp4SampleTable.boxes(for: samples, keepSyncTable: hadSyncTable) { payload.append(table) }
                return mp4Box("stbl", payload)
            case _ where containers.contains(box.type):
                var payload = Data()
                for child in try Mp4Box.children(of: data, in: box.payload) { payload.append(try rebuild(child)) }
                return mp4Box(box.type, payload)
            default:
                return data[box.offset..<box.end]
            }
        }
        var payload = Data()
        for child in try Mp4Box.children(of: data, in: trak.payload) where !(replacingEditLists && child.type == "edts")
        {
            payload.append(try rebuild(child))
            if child.type == "tkhd", let newEdits { payload.append(newEdits) }
        }
        return (mp4Box("trak", payload), trackDuration)
    }

    /// An `edts` whose `elst` shows nothing for `start` (movie timescale; omitted when 0), then the media from
    /// `mediaTime` (media timescale) for `mediaDuration` (movie timescale).
    static func editList(start: UInt64, mediaDuration: UInt64, mediaTime: Int32) -> Data {
        var entries: [(duration: UInt64, time: Int64)] = []
        if start > 0 { entries.append((start, -1)) }
        entries.append((mediaDuration, Int64(mediaTime)))
        let wide = entries.contains { $0.duration > UInt64(UInt32.max) }
        var body = Data()
        body.append(bigEndian: UInt32(entries.count))
        for entry in entries {
            if wide {
                body.append(bigEndian: entry.duration)
                body.append(bigEndian: entry.time)
            } else {
                body.append(bigEndian: UInt32(entry.duration))
                body.append(bigEndian: Int32(entry.time))
            }
            body.append(bigEndian: UInt32(0x0001_0000))  // rate 1.0
        }
        return mp4Box("edts", mp4FullBox("elst", version: wide ? 1 : 0, body))
    }

    /// `value` in timescale `from`, rounded to timescale `to`, in full width: the times come from the file (a 64-bit
    /// `tfdt` times a timescale overflowed, found by fuzzing), and a result past 64 bits is refused.
    static func rescaled(_ value: UInt64, from: UInt64, to: UInt64, what: String) throws -> UInt64 {
        var (high, low) = value.multipliedFullWidth(by: to)
        let (sum, carry) = low.addingReportingOverflow(from / 2)
        low = sum
        if carry { high += 1 }  // the product's high half is at most 2^64 - 2
        guard high < from else { throw Mp4Finishing.Failure.unexpectedLayout("\(what) does not fit in 64 bits") }
        return from.dividingFullWidth((high, low)).quotient
    }

    /// A copy of a full box (mvhd, tkhd, mdhd) with its duration field set; `durationAt` is the field's position
    /// in the payload for version 0 (32 bits) and version 1 (64 bits).
    private static func patched(_ box: Mp4Box, _ data: Data, durationAt: (v0: Int, v1: Int), to duration: UInt64) throws
        -> Data
    {
        var bytes = Data(data[box.offset..<box.end])
        let width = box.version(in: data) == 1 ? 8 : 4
        guard box.headerSize + (width == 8 ? durationAt.v1 : durationAt.v0) + width <= bytes.count else {
            throw Mp4Finishing.Failure.unexpectedLayout("a \(box.type) of \(box.size) bytes")
        }
        if width == 8 {
            bytes.put(bigEndian: duration, at: box.headerSize + durationAt.v1)
        } else {
            guard duration <= UInt64(UInt32.max) else {
                throw Mp4Finishing.Failure.unexpectedLayout("\(box.type) cannot hold a duration of \(duration)")
            }
            bytes.put(bigEndian: UInt32(duration), at: box.headerSize + durationAt.v0)
        }
        return bytes
    }

    /// Whether the entries are 64-bit, how many, and where the first starts; checked to lie in the box.
    private static func editEntries(_ elst: Mp4Box, _ data: Data) throws -> (wide: Bool, count: Int, first: Int) {
        guard elst.payload.count >= 8 else { throw Mp4Finishing.Failure.unexpectedLayout("a short elst") }
        let (wide, count, first) = (
            elst.version(in: data) == 1, Int(data.uint32(at: elst.payload.lowerBound + 4)), elst.payload.lowerBound + 8
        )
        guard first + count * (wide ? 20 : 12) <= elst.end else {
            throw Mp4Finishing.Failure.unexpectedLayout("a short elst")
        }
        return (wide, count, first)
    }

    /// The length of the empty edits (media time -1: a stream that starts late) before the media.
    static func emptyEditDuration(_ edts: Mp4Box, _ data: Data) throws -> UInt64 {
        guard let elst = try Mp4Box.child("elst", of: edts, in: data) else { return 0 }
        let (wide, count, first) = try editEntries(elst, data)
        let width = wide ? 20 : 12
        var total: UInt64 = 0
        for i in 0..<count {
            let at = first + i * width
            let mediaTime = wide ? Int64(bitPattern: data.uint64(at: at + 8)) : Int64(data.int32(at: at + 4))
            guard mediaTime == -1 else { continue }
            let (sum, overflow) = total.addingReportingOverflow(
                wide ? data.uint64(at: at) : UInt64(data.uint32(at: at)))
            guard !overflow else { throw Mp4Finishing.Failure.unexpectedLayout("empty edits of more than 2^64 units") }
            total = sum
        }
        return total
    }

    /// The edit list with its media edit (the one entry that is not empty) running for `duration`.
    private static func mediaEdit(_ elst: Mp4Box, _ data: Data, duration: UInt64) throws -> Data {
        var bytes = Data(data[elst.offset..<elst.end])
        let (wide, count, first) = try editEntries(elst, data)
        let width = wide ? 20 : 12
        for i in 0..<count {
            let at = first + i * width
            let mediaTime = wide ? Int64(bitPattern: data.uint64(at: at + 8)) : Int64(data.int32(at: at + 4))
            guard mediaTime != -1 else { continue }
            let local = at - elst.offset
            if wide {
                bytes.put(bigEndian: duration, at: local)
            } else {
                guard duration <= UInt64(UInt32.max) else {
                    throw Mp4Finishing.Failure.unexpectedLayout("elst cannot hold \(duration)")
                }
                bytes.put(bigEndian: UInt32(duration), at: local)
            }
        }
        return bytes
    }
}
