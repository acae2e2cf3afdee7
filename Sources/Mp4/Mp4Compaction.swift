import ApplianceBase
import Foundation
import SystemCalls

/// Removes the index space that robust muxing reserved but did not use.
///
/// mp4mux's robust mode writes `ftyp`, then room for two copies of the index (`moov` plus `free` atoms) sized
/// for the longest the file may run, then `mdat`. A clip stopped early carries the unused room: a 3 s clip
/// reserved for an hour is 9.7 MB of which 1.7 MB is media. Compaction writes `ftyp`, the index with its chunk
/// offsets moved, and the media to a new file next to the old one, syncs it and renames it over the old one,
/// so a crash at any point leaves one whole playable file. It runs only where the padding is worth a copy
/// (more than `threshold` of the file); a segment whose reservation fits its length is left alone.
package enum Mp4Compaction {
    struct Atom {
        package var type: String
        package var offset: Int64
        package var size: Int64
        package var headerSize: Int64
        package var end: Int64 { offset + size }
    }

    /// The one error type of the MP4 storage code.
    package typealias Failure = Mp4Finishing.Failure

    /// The suffix of the temporary file; start-up recovery removes leftovers.
    package static let temporarySuffix = ".compacting"

    /// Compacts the file in place if its padding exceeds `threshold` of its size; returns the bytes removed.
    @discardableResult
    package static func compact(path: String, threshold: Double = 0.01) throws -> Int64 {
        let atoms = try topLevelAtoms(path: path)
        guard let ftyp = atoms.first, ftyp.type == "ftyp" else { throw Failure.unexpectedLayout("no ftyp first") }
        guard let moov = atoms.first(where: { $0.type == "moov" }) else { throw Failure.unexpectedLayout("no moov") }
        guard let mdat = atoms.first(where: { $0.type == "mdat" }), mdat.offset > moov.offset else {
            return 0  // index after the media (not robust muxing): nothing reserved
        }
        let fileSize = atoms.last!.end
        let mediaLength = fileSize - mdat.offset - mdat.headerSize
        let newHeader: Int64 = mediaLength + 8 > Int64(UInt32.max) ? 16 : 8
        let newMediaStart = ftyp.size + moov.size + newHeader
        let shift = mdat.offset + mdat.headerSize - newMediaStart
        guard shift > 0, Double(shift) > threshold * Double(fileSize) else { return 0 }

        let input = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        defer { try? input.close() }
        try input.seek(toOffset: 0)
        let ftypBytes = try read(input, count: Int(ftyp.size))
        try input.seek(toOffset: UInt64(moov.offset))
        var moovBytes = try read(input, count: Int(moov.size))
        try shiftChunkOffsets(in: &moovBytes, range: 0..<moovBytes.count, by: shift)

        let temporary = path + temporarySuffix
        // a failure shows as the open below throwing
        _ = FileManager.default.createFile(atPath: temporary, contents: nil)
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: temporary))
        do {
            try output.write(contentsOf: ftypBytes)
            try output.write(contentsOf: moovBytes)
            var header = Data()
            if newHeader == 16 {
                header.append(bigEndian: UInt32(1))
                header.append(contentsOf: Array("mdat".utf8))
                header.append(bigEndian: UInt64(mediaLength + 16))
            } else {
                header.append(bigEndian: UInt32(mediaLength + 8))
                header.append(contentsOf: Array("mdat".utf8))
            }
            try output.write(contentsOf: header)
            try input.seek(toOffset: UInt64(mdat.offset + mdat.headerSize))
            var remaining = mediaLength
            while remaining > 0 {
                let chunk = try read(input, count: Int(min(remaining, 1 << 20)))
                try output.write(contentsOf: chunk)
                remaining -= Int64(chunk.count)
            }
            try output.synchronize()
            try output.close()
        } catch {
            try? output.close()
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        }
        do {
            try SystemCall.run("rename") { rename(temporary, path) }
        } catch {
            try? FileManager.default.removeItem(atPath: temporary)
            throw Failure.unreadable("cannot replace \(path): \(error.reason)")
        }
        try? DataDirectory.fsync(path: (path as NSString).deletingLastPathComponent)
        return shift
    }

    // MARK: atoms

    static func topLevelAtoms(path: String) throws -> [Atom] {
        guard let handle = FileHandle(forReadingAtPath: path) else { throw Failure.unreadable("cannot open \(path)") }
        defer { try? handle.close() }
        let fileSize = Int64(try handle.seekToEnd())
        var atoms: [Atom] = []
        var offset: Int64 = 0
        while offset + 8 <= fileSize {
            try handle.seek(toOffset: UInt64(offset))
            let header = try read(handle, count: 16, allowShort: true)
            var size = Int64(header.uint32(at: 0))
            let type = String(decoding: header[4..<8], as: UTF8.self)
            var headerSize: Int64 = 8
            if size == 1 {
                guard header.count >= 16 else { throw Failure.unexpectedLayout("truncated 64-bit \(type) header") }
                size = Int64(clamping: header.uint64(at: 8))  // past Int64.max: refused below, not a trap
                headerSize = 16
            } else if size == 0 {
                size = fileSize - offset  // runs to the end of the file (a recovered mdat)
            }
            // A robust mdat whose size was not written yet also runs to the end.
            if type == "mdat", size > fileSize - offset || size < headerSize { size = fileSize - offset }
            guard size >= headerSize, size <= fileSize - offset else {
                throw Failure.unexpectedLayout("atom \(type) at \(offset) runs past the end")
            }
            atoms.append(Atom(type: type, offset: offset, size: size, headerSize: headerSize))
            offset += size
        }
        return atoms
    }

    private static let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "edts", "dinf"]

    /// Walks the index and lowers every chunk offset (`stco`, `co64`) by `shift`.
    static func shiftChunkOffsets(in bytes: inout Data, range: Range<Int>, by shift: Int64) throws {
        var offset = range.lowerBound
        // The moov atom itself: step into its children.
        if offset == 0, bytes.count >= 8, String(decoding: bytes[4..<8], as: UTF8.self) == "moov" {
            // `bytes` is the whole box (its size was checked when it was read): a 64-bit header is 16 bytes.
            let header = bytes.uint32(at: 0) == 1 ? 16 : 8
            guard bytes.count >= header else { throw Failure.unexpectedLayout("a truncated moov header") }
            try shiftChunkOffsets(in: &bytes, range: header..<bytes.count, by: shift)
            return
        }
        while offset + 8 <= range.upperBound {
            let size = Int(bytes.uint32(at: offset))
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            guard size >= 8, offset + size <= range.upperBound else {
                throw Failure.unexpectedLayout("index atom \(type) at \(offset) has size \(size)")
            }
            switch type {
            case _ where containers.contains(type):
                try shiftChunkOffsets(in: &bytes, range: (offset + 8)..<(offset + size), by: shift)
            case "stco", "co64":
                let wide = type == "co64"
                guard size >= 16 else { throw Failure.unexpectedLayout("a short \(type)") }
                let count = Int(bytes.uint32(at: offset + 12))
                let width = wide ? 8 : 4
                guard 16 + count * width <= size else {
                    throw Failure.unexpectedLayout("\(type) with \(count) entries in \(size) bytes")
                }
                for i in 0..<count {
                    let at = offset + 16 + i * width
                    let value = wide ? Int64(clamping: bytes.uint64(at: at)) : Int64(bytes.uint32(at: at))
                    guard value >= shift else {
                        throw Failure.unexpectedLayout("a chunk offset points before the media")
                    }
                    if wide {
                        bytes.put(bigEndian: UInt64(value - shift), at: at)
                    } else {
                        bytes.put(bigEndian: UInt32(value - shift), at: at)
                    }
                }
            default:
                break
            }
            offset += size
        }
    }

    private static func read(_ handle: FileHandle, count: Int, allowShort: Bool = false) throws -> Data {
        let data = try handle.read(upToCount: count) ?? Data()
        guard allowShort || data.count == count else {
            throw Failure.unreadable("short read (\(data.count) of \(count) bytes)")
        }
        return data
    }
}
