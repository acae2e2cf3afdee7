import Foundation

/// Reads what the `moof` boxes of a fragmented MP4 state about their samples (ISO/IEC 14496-12 §8.8), leaving out
/// nothing and making nothing up: a value a fragment does not state is nil here, and `Mp4FragmentSamples` derives
/// it or refuses the fragment.
package enum Mp4Fragments {
    /// A track's `trex` defaults, used where a fragment gives no value of its own.
    package struct TrackDefaults: Equatable {
        package var duration: UInt32?
        package var size: UInt32?
        package var flags: UInt32 = 0
    }

    /// One sample as a `trun` lists it.
    package struct Entry: Equatable {
        package var size: UInt32?
        package var duration: UInt32?
        package var flags: UInt32
        package var compositionOffset: Int32 = 0

        package init(size: UInt32? = nil, duration: UInt32? = nil, flags: UInt32, compositionOffset: Int32 = 0) {
            self.size = size
            self.duration = duration
            self.flags = flags
            self.compositionOffset = compositionOffset
        }
        package var isSync: Bool { flags & Mp4Fragments.nonSyncFlag == 0 }
    }

    /// One `trun`: samples stored one after the other from `dataOffset` (absolute, in the file).
    package struct Run: Equatable {
        package var dataOffset: Int64
        package var entries: [Entry]

        package init(dataOffset: Int64, entries: [Entry]) {
            self.dataOffset = dataOffset
            self.entries = entries
        }
    }

    /// One `traf`: a track's part of a fragment.
    package struct TrackFragment: Equatable {
        package var trackID: UInt32
        /// `tfdt`: the decode time of its first sample, in the track's timescale.
        package var decodeTime: UInt64?
        package var runs: [Run]

        package init(trackID: UInt32, decodeTime: UInt64? = nil, runs: [Run]) {
            self.trackID = trackID
            self.decodeTime = decodeTime
            self.runs = runs
        }
    }

    /// `sample_is_non_sync_sample` in the sample flags.
    package static let nonSyncFlag: UInt32 = 0x1_0000

    /// The `trex` defaults in an `mvex`, by track ID (a default of 0 counts as none).
    package static func defaults(mvex: Mp4Box, in data: Data) throws -> [UInt32: TrackDefaults] {
        var result: [UInt32: TrackDefaults] = [:]
        for trex in try Mp4Box.children(of: data, in: mvex.payload) where trex.type == "trex" {
            guard trex.payload.count >= 24 else { throw Mp4Finishing.Failure.unexpectedLayout("a short trex") }
            let p = trex.payload.lowerBound
            let duration = data.uint32(at: p + 12)
            let size = data.uint32(at: p + 16)
            result[data.uint32(at: p + 4)] = TrackDefaults(
                duration: duration == 0 ? nil : duration, size: size == 0 ? nil : size,
                flags: data.uint32(at: p + 20))
        }
        return result
    }

    /// The track fragments of one `moof`, in file order. `moof` holds the box's bytes; `moofOffset` is where it
    /// starts in the file (the base of data offsets when a fragment names none). `mediaBytes`: the size of the
    /// fragment's media when known; a run cannot list more samples than it has bytes (no sample is empty), and a
    /// `trun` without per-sample fields states up to 2^32 samples in 12 bytes (4 GB of entries, found by fuzzing).
    package static func trackFragments(
        moof: Data, moofOffset: Int64, defaults: [UInt32: TrackDefaults],
        mediaBytes: Int64? = nil
    ) throws -> [TrackFragment] {
        let boxes = try Mp4Box.children(of: moof, in: 0..<moof.count)
        guard let box = boxes.first, box.type == "moof" else {
            throw Mp4Finishing.Failure.unexpectedLayout("not a moof")
        }
        var result: [TrackFragment] = []
        var previousTrafEnd: Int64?
        for traf in try Mp4Box.children(of: moof, in: box.payload) where traf.type == "traf" {
            let children = try Mp4Box.children(of: moof, in: traf.payload)
            guard let tfhd = children.first(where: { $0.type == "tfhd" }) else {
                throw Mp4Finishing.Failure.unexpectedLayout("a traf without tfhd")
            }
            let header = try TrackFragmentHeader(tfhd, moof, defaults: defaults)
            let base =
                header.baseDataOffset ?? (header.baseIsMoof || previousTrafEnd == nil ? moofOffset : previousTrafEnd!)
            var fragment = TrackFragment(
                trackID: header.trackID,
                decodeTime: try children.first { $0.type == "tfdt" }.map { try decodeTime($0, moof) },
                runs: [])
            var position: Int64? = base
            for trun in children where trun.type == "trun" {
                let run = try readRun(
                    trun, moof, base: base, continuingAt: position, defaults: header.defaults,
                    maxCount: min(mediaBytes ?? .max, Int64(Mp4SampleTable.maxSamples)))
                fragment.runs.append(run)
                // The next run continues where this one ends, unless it names an offset; unknown with a size missing.
                position = run.entries.reduce(Optional(run.dataOffset)) { end, entry in
                    entry.size.flatMap { size in end.map { $0 + Int64(size) } }
                }
            }
            result.append(fragment)
            previousTrafEnd = position
        }
        return result
    }

    private static func decodeTime(_ tfdt: Mp4Box, _ data: Data) throws -> UInt64 {
        let wide = tfdt.version(in: data) == 1
        guard tfdt.payload.count >= (wide ? 12 : 8) else { throw Mp4Finishing.Failure.unexpectedLayout("a short tfdt") }
        let at = tfdt.payload.lowerBound + 4
        return wide ? data.uint64(at: at) : UInt64(data.uint32(at: at))
    }

    private struct TrackFragmentHeader {
        var trackID: UInt32
        var baseDataOffset: Int64?
        var baseIsMoof: Bool
        var defaults: TrackDefaults

        init(_ tfhd: Mp4Box, _ data: Data, defaults all: [UInt32: TrackDefaults]) throws {
            let flags = tfhd.flags(in: data)
            var at = tfhd.payload.lowerBound + 4
            func next(_ width: Int) throws -> UInt64 {
                guard at + width <= tfhd.end else { throw Mp4Finishing.Failure.unexpectedLayout("a short tfhd") }
                defer { at += width }
                return width == 8 ? data.uint64(at: at) : UInt64(data.uint32(at: at))
            }
            trackID = UInt32(try next(4))
            var d = all[trackID] ?? TrackDefaults()
            if flags & 0x1 != 0 {
                // Offsets are added to it: one past any file (2^62 bytes) is refused before it can overflow.
                let base = try next(8)
                guard base < 1 << 62 else {
                    throw Mp4Finishing.Failure.unexpectedLayout("track \(trackID)'s base data offset \(base)")
                }
                baseDataOffset = Int64(base)
            } else {
                baseDataOffset = nil
            }
            if flags & 0x2 != 0, try next(4) != 1 {
                throw Mp4Finishing.Failure.unexpectedLayout("track \(trackID) changes its sample description")
            }
            if flags & 0x8 != 0 { d.duration = UInt32(try next(4)) }
            if flags & 0x10 != 0 { d.size = UInt32(try next(4)) }
            if flags & 0x20 != 0 { d.flags = UInt32(try next(4)) }
            baseIsMoof = flags & 0x2_0000 != 0
            defaults = d
        }
    }

    /// One `trun`'s samples. `position`: where the previous run of the traf ended (nil: unknown), the start of a run
    /// that names no offset of its own.
    private static func readRun(
        _ trun: Mp4Box, _ data: Data, base: Int64, continuingAt position: Int64?,
        defaults: TrackDefaults, maxCount: Int64
    ) throws -> Run {
        let flags = trun.flags(in: data)
        let signed = trun.version(in: data) == 1
        var at = trun.payload.lowerBound + 4
        func next() throws -> UInt32 {
            guard at + 4 <= trun.end else { throw Mp4Finishing.Failure.unexpectedLayout("a short trun") }
            defer { at += 4 }
            return data.uint32(at: at)
        }
        let count = try next()
        guard Int64(count) <= maxCount else {
            throw Mp4Finishing.Failure.unexpectedLayout("trun lists \(count) samples, more than its media holds")
        }
        let offset = flags & 0x1 != 0 ? base + Int64(Int32(bitPattern: try next())) : position
        guard let offset else {
            throw Mp4Finishing.Failure.unexpectedLayout("a run whose data follows samples of no stated size")
        }
        let firstFlags = flags & 0x4 != 0 ? try next() : nil
        let perSample = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count
        guard at + Int(count) * perSample * 4 <= trun.end else {
            throw Mp4Finishing.Failure.unexpectedLayout("trun lists \(count) samples in \(trun.size) bytes")
        }
        var entries: [Entry] = []
        entries.reserveCapacity(Int(count))
        for i in 0..<count {
            let duration = flags & 0x100 != 0 ? try next() : defaults.duration
            let size = flags & 0x200 != 0 ? try next() : defaults.size
            var sampleFlags = flags & 0x400 != 0 ? try next() : defaults.flags
            if i == 0, let firstFlags { sampleFlags = firstFlags }
            let raw = flags & 0x800 != 0 ? try next() : 0
            // Version 0 offsets are unsigned, but nothing a camera writes comes near 2^31.
            let composition = signed ? Int32(bitPattern: raw) : Int32(clamping: raw)
            entries.append(Entry(size: size, duration: duration, flags: sampleFlags, compositionOffset: composition))
        }
        return Run(dataOffset: offset, entries: entries)
    }
}
