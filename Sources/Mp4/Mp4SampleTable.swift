import Foundation

/// One sample (a video frame or an audio frame) as an MP4 index lists it.
package struct Mp4Sample: Equatable, Sendable {
    /// Absolute position of its bytes in the file.
    package var offset: Int64
    package var size: UInt32
    /// In the track's timescale.
    package var duration: UInt32
    /// Presentation minus decoding time, in the track's timescale (0 without B-frames).
    package var compositionOffset: Int32 = 0
    package var isSync: Bool

    package init(offset: Int64, size: UInt32, duration: UInt32, compositionOffset: Int32 = 0, isSync: Bool) {
        self.offset = offset
        self.size = size
        self.duration = duration
        self.compositionOffset = compositionOffset
        self.isSync = isSync
    }
}

/// Reads and writes a track's sample table (`stbl`: stts, ctts, stss, stsz, stsc, stco/co64).
package enum Mp4SampleTable {
    /// The table boxes that describe samples; everything else in an `stbl` (stsd, sdtp…) is kept as it is.
    static let tableTypes: Set<String> = ["stts", "ctts", "stss", "stsz", "stsc", "stco", "co64"]

    /// More samples than one index of a recording lists (a day of 96 frames a second is 8.3 M). A table's counts come
    /// from the file: a fixed-size `stsz` states its count in 4 bytes, and expanding 2^32 of them took 7 GB (fuzzing).
    static let maxSamples = 1 << 23

    /// The samples an `stbl` lists, in decoding order.
    package static func samples(stbl: Mp4Box, in data: Data) throws -> [Mp4Sample] {
        let boxes = try Mp4Box.children(of: data, in: stbl.payload)
        func box(_ type: String) -> Mp4Box? { boxes.first { $0.type == type } }
        guard let stsz = box("stsz"), let stts = box("stts"), let stsc = box("stsc"),
            let chunkBox = box("stco") ?? box("co64")
        else {
            throw Mp4Finishing.Failure.unexpectedLayout("a sample table without stsz, stts, stsc or stco")
        }
        let sizes = try readSizes(stsz, data)
        let durations = try expandRuns(stts, data, count: sizes.count).map { UInt32(bitPattern: $0) }
        let compositions =
            try box("ctts").map { try expandRuns($0, data, count: sizes.count) }
            ?? Array(repeating: 0, count: sizes.count)
        let syncNumbers = try box("stss").map { try readList($0, data, wide: false) }
        let offsets = try sampleOffsets(
            chunks: try readList(chunkBox, data, wide: chunkBox.type == "co64"),
            stsc: stsc, sizes: sizes, data: data)
        let sync = syncNumbers.map { Set($0.map { Int($0) }) }
        return sizes.indices.map { i in
            Mp4Sample(
                offset: offsets[i], size: sizes[i], duration: durations[i], compositionOffset: compositions[i],
                isSync: sync?.contains(i + 1) ?? true)
        }
    }

    /// The table boxes for `samples`, in the order a muxer writes them. One sample per chunk: simple, and what
    /// mp4mux writes itself for fragmented input. `keepSyncTable`: write `stss` even when every sample is a sync
    /// sample (mp4mux lists audio frames in one).
    package static func boxes(for samples: [Mp4Sample], keepSyncTable: Bool) -> [Data] {
        var result: [Data] = []
        result.append(runs("stts", samples.map { Int64($0.duration) }, version: 0))
        if samples.contains(where: { $0.compositionOffset != 0 }) {
            let negative = samples.contains { $0.compositionOffset < 0 }
            result.append(runs("ctts", samples.map { Int64($0.compositionOffset) }, version: negative ? 1 : 0))
        }
        if keepSyncTable || samples.contains(where: { !$0.isSync }) {
            var body = Data()
            let numbers = samples.indices.filter { samples[$0].isSync }
            body.append(bigEndian: UInt32(numbers.count))
            for n in numbers { body.append(bigEndian: UInt32(n + 1)) }
            result.append(mp4FullBox("stss", body))
        }
        var stsz = Data()
        if let first = samples.first, samples.allSatisfy({ $0.size == first.size }) {
            stsz.append(bigEndian: first.size)
            stsz.append(bigEndian: UInt32(samples.count))
        } else {
            stsz.append(bigEndian: UInt32(0))
            stsz.append(bigEndian: UInt32(samples.count))
            for s in samples { stsz.append(bigEndian: s.size) }
        }
        result.append(mp4FullBox("stsz", stsz))
        var stsc = Data()
        stsc.append(bigEndian: UInt32(samples.isEmpty ? 0 : 1))
        if !samples.isEmpty {
            stsc.append(bigEndian: UInt32(1))  // from the first chunk on
            stsc.append(bigEndian: UInt32(1))  // one sample per chunk
            stsc.append(bigEndian: UInt32(1))  // sample description 1
        }
        result.append(mp4FullBox("stsc", stsc))
        let wide = samples.contains { $0.offset > Int64(UInt32.max) }
        var offsets = Data()
        offsets.append(bigEndian: UInt32(samples.count))
        for s in samples {
            if wide { offsets.append(bigEndian: UInt64(s.offset)) } else { offsets.append(bigEndian: UInt32(s.offset)) }
        }
        result.append(mp4FullBox(wide ? "co64" : "stco", offsets))
        return result
    }

    // MARK: reading

    private static func entryCount(_ box: Mp4Box, _ data: Data, entrySize: Int, header: Int = 8) throws -> Int {
        guard box.payload.count >= header else { throw Mp4Finishing.Failure.unexpectedLayout("a short \(box.type)") }
        let count = Int(data.uint32(at: box.payload.lowerBound + header - 4))
        guard box.payload.lowerBound + header + count * entrySize <= box.end else {
            throw Mp4Finishing.Failure.unexpectedLayout("\(box.type) lists \(count) entries in \(box.size) bytes")
        }
        return count
    }

    private static func readSizes(_ stsz: Mp4Box, _ data: Data) throws -> [UInt32] {
        let base = stsz.payload.lowerBound
        guard stsz.payload.count >= 12 else { throw Mp4Finishing.Failure.unexpectedLayout("a short stsz") }
        let fixed = data.uint32(at: base + 4)
        let count = Int(data.uint32(at: base + 8))
        guard count <= maxSamples else { throw Mp4Finishing.Failure.unexpectedLayout("stsz lists \(count) samples") }
        if fixed != 0 { return Array(repeating: fixed, count: count) }
        guard base + 12 + count * 4 <= stsz.end else {
            throw Mp4Finishing.Failure.unexpectedLayout("stsz lists \(count) sizes in \(stsz.size) bytes")
        }
        return (0..<count).map { data.uint32(at: base + 12 + $0 * 4) }
    }

    /// stts or ctts: (count, value) runs expanded to one value per sample (as signed 32-bit: ctts version 1 is
    /// signed; version 0 offsets and stts deltas stay below 2^31 in anything a camera writes).
    private static func expandRuns(_ box: Mp4Box, _ data: Data, count: Int) throws -> [Int32] {
        let entries = try entryCount(box, data, entrySize: 8)
        var values: [Int32] = []
        values.reserveCapacity(count)
        for e in 0..<entries {
            let at = box.payload.lowerBound + 8 + e * 8
            // Only as many as there are samples: a run's count is the file's word, up to 2^32.
            values.append(
                contentsOf: repeatElement(
                    data.int32(at: at + 4), count: min(Int(data.uint32(at: at)), count - values.count)))
        }
        guard values.count >= count else {
            throw Mp4Finishing.Failure.unexpectedLayout("\(box.type) covers \(values.count) of \(count) samples")
        }
        return Array(values.prefix(count))
    }

    private static func readList(_ box: Mp4Box, _ data: Data, wide: Bool) throws -> [Int64] {
        let width = wide ? 8 : 4
        let count = try entryCount(box, data, entrySize: width)
        return try (0..<count).map { i in
            let at = box.payload.lowerBound + 8 + i * width
            guard wide else { return Int64(data.uint32(at: at)) }
            // Sample sizes are added to a chunk's offset: one past any file (2^62 bytes) is refused, not a trap.
            let value = data.uint64(at: at)
            guard value < 1 << 62 else {
                throw Mp4Finishing.Failure.unexpectedLayout("\(box.type) lists an offset of \(value)")
            }
            return Int64(value)
        }
    }

    private static func sampleOffsets(chunks: [Int64], stsc: Mp4Box, sizes: [UInt32], data: Data) throws -> [Int64] {
        let entries = try entryCount(stsc, data, entrySize: 12)
        let runs: [(firstChunk: Int, perChunk: Int)] = (0..<entries).map { e in
            let at = stsc.payload.lowerBound + 8 + e * 12
            return (Int(data.uint32(at: at)), Int(data.uint32(at: at + 4)))
        }
        var offsets: [Int64] = []
        offsets.reserveCapacity(sizes.count)
        var run = 0
        for (index, chunkOffset) in chunks.enumerated() where offsets.count < sizes.count {
            let chunk = index + 1
            while run + 1 < runs.count, runs[run + 1].firstChunk <= chunk { run += 1 }
            var position = chunkOffset
            for _ in 0..<min(runs.isEmpty ? 0 : runs[run].perChunk, sizes.count - offsets.count) {
                offsets.append(position)
                position += Int64(sizes[offsets.count - 1])
            }
        }
        guard offsets.count == sizes.count else {
            throw Mp4Finishing.Failure.unexpectedLayout("the chunks place \(offsets.count) of \(sizes.count) samples")
        }
        return offsets
    }

    // MARK: writing

    private static func runs(_ type: String, _ values: [Int64], version: UInt8) -> Data {
        var entries: [(count: UInt32, value: Int64)] = []
        for v in values {
            if let last = entries.last, last.value == v {
                entries[entries.count - 1].count += 1
            } else {
                entries.append((1, v))
            }
        }
        var body = Data()
        body.append(bigEndian: UInt32(entries.count))
        for e in entries {
            body.append(bigEndian: e.count)
            body.append(bigEndian: UInt32(truncatingIfNeeded: e.value))
        }
        return mp4FullBox(type, version: version, body)
    }
}
