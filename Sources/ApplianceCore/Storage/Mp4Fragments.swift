import Foundation

/// Reads the samples that the `moof` boxes of a fragmented MP4 list (ISO/IEC 14496-12 §8.8).
enum Mp4Fragments {
    /// A track's `trex` defaults, used where a fragment gives no value of its own.
    struct TrackDefaults: Equatable {
        var duration: UInt32 = 0
        var size: UInt32 = 0
        var flags: UInt32 = 0
    }

    /// `sample_is_non_sync_sample` in the sample flags.
    static let nonSyncFlag: UInt32 = 0x1_0000

    /// The `trex` defaults in an `mvex`, by track ID.
    static func defaults(mvex: Mp4Box, in data: Data) throws -> [UInt32: TrackDefaults] {
        var result: [UInt32: TrackDefaults] = [:]
        for trex in try Mp4Box.children(of: data, in: mvex.payload) where trex.type == "trex" {
            guard trex.payload.count >= 24 else { throw Mp4Finishing.Failure.unexpectedLayout("a short trex") }
            let p = trex.payload.lowerBound
            result[data.uint32(at: p + 4)] = TrackDefaults(duration: data.uint32(at: p + 12), size: data.uint32(at: p + 16),
                                                          flags: data.uint32(at: p + 20))
        }
        return result
    }

    /// The samples one `moof` lists, by track ID, in decoding order. `moof` holds the box's bytes; `moofOffset` is
    /// where it starts in the file (the base of data offsets when a fragment names none).
    static func samples(moof: Data, moofOffset: Int64, defaults: [UInt32: TrackDefaults]) throws -> [UInt32: [Mp4Sample]] {
        let boxes = try Mp4Box.children(of: moof, in: 0..<moof.count)
        guard let box = boxes.first, box.type == "moof" else { throw Mp4Finishing.Failure.unexpectedLayout("not a moof") }
        var result: [UInt32: [Mp4Sample]] = [:]
        var previousTrafEnd: Int64?
        for traf in try Mp4Box.children(of: moof, in: box.payload) where traf.type == "traf" {
            let children = try Mp4Box.children(of: moof, in: traf.payload)
            guard let tfhd = children.first(where: { $0.type == "tfhd" }) else { throw Mp4Finishing.Failure.unexpectedLayout("a traf without tfhd") }
            let header = try TrackFragmentHeader(tfhd, moof, defaults: defaults)
            let base = header.baseDataOffset ?? (header.baseIsMoof || previousTrafEnd == nil ? moofOffset : previousTrafEnd!)
            var position = base
            var samples = result[header.trackID] ?? []
            for trun in children where trun.type == "trun" {
                position = try readRun(trun, moof, base: base, continuingAt: position, header: header, into: &samples)
            }
            result[header.trackID] = samples
            previousTrafEnd = position
        }
        return result
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
            baseDataOffset = flags & 0x1 != 0 ? Int64(try next(8)) : nil
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

    /// Appends one `trun`'s samples; returns where its data ends (the next run starts there unless it gives an
    /// offset of its own).
    private static func readRun(_ trun: Mp4Box, _ data: Data, base: Int64, continuingAt position: Int64,
                                header: TrackFragmentHeader, into samples: inout [Mp4Sample]) throws -> Int64 {
        let flags = trun.flags(in: data)
        let signed = trun.version(in: data) == 1
        var at = trun.payload.lowerBound + 4
        func next() throws -> UInt32 {
            guard at + 4 <= trun.end else { throw Mp4Finishing.Failure.unexpectedLayout("a short trun") }
            defer { at += 4 }
            return data.uint32(at: at)
        }
        let count = try next()
        var cursor = flags & 0x1 != 0 ? base + Int64(Int32(bitPattern: try next())) : position
        let firstFlags = flags & 0x4 != 0 ? try next() : nil
        let perSample = [0x100, 0x200, 0x400, 0x800].filter { flags & UInt32($0) != 0 }.count
        guard at + Int(count) * perSample * 4 <= trun.end else {
            throw Mp4Finishing.Failure.unexpectedLayout("trun lists \(count) samples in \(trun.size) bytes")
        }
        for i in 0..<count {
            // mp4mux (1.22) drops a track's default duration from tfhd once one sample differs, yet leaves later
            // runs that matched it without durations of their own: such a sample lasts as long as the one before.
            let fallback = header.defaults.duration != 0 ? header.defaults.duration : samples.last?.duration ?? 0
            let duration = flags & 0x100 != 0 ? try next() : fallback
            let size = flags & 0x200 != 0 ? try next() : header.defaults.size
            var sampleFlags = flags & 0x400 != 0 ? try next() : header.defaults.flags
            if i == 0, let firstFlags { sampleFlags = firstFlags }
            let raw = flags & 0x800 != 0 ? try next() : 0
            // Version 0 offsets are unsigned, but nothing a camera writes comes near 2^31.
            let composition = signed ? Int32(bitPattern: raw) : Int32(clamping: raw)
            samples.append(Mp4Sample(offset: cursor, size: size, duration: duration, compositionOffset: composition,
                                     isSync: sampleFlags & nonSyncFlag == 0))
            cursor += Int64(size)
        }
        return cursor
    }
}
