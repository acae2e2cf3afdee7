import Foundation

/// Big-endian reading and writing in `Data`, as every ISO BMFF (MP4) field is stored. Offsets are relative to the
/// data's start, so slices can be read with the offsets an atom gives.
extension Data {
    func uint8(at offset: Int) -> UInt8 { self[startIndex + offset] }

    package func uint32(at offset: Int) -> UInt32 {
        let base = startIndex + offset
        return self[base..<(base + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    package func int32(at offset: Int) -> Int32 { Int32(bitPattern: uint32(at: offset)) }

    package func uint64(at offset: Int) -> UInt64 {
        let base = startIndex + offset
        return self[base..<(base + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    package func fourCC(at offset: Int) -> String {
        let base = startIndex + offset
        return String(decoding: self[base..<(base + 4)], as: UTF8.self)
    }

    package mutating func append<T: FixedWidthInteger>(bigEndian value: T) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }

    package mutating func append(fourCC: String) { append(contentsOf: Array(fourCC.utf8.prefix(4))) }

    package mutating func put<T: FixedWidthInteger>(bigEndian value: T, at offset: Int) {
        Swift.withUnsafeBytes(of: value.bigEndian) { raw in
            replaceSubrange((startIndex + offset)..<(startIndex + offset + raw.count), with: raw)
        }
    }
}

/// One box (atom) inside a block of bytes: where it starts, how long it is, and how long its header is.
package struct Mp4Box: Equatable {
    package var type: String
    package var offset: Int
    package var size: Int
    package var headerSize: Int
    package var payload: Range<Int> { (offset + headerSize)..<(offset + size) }
    package var end: Int { offset + size }

    /// The boxes laid end to end in `range` of `data`. A box that claims more room than is left is an error: an
    /// index is read whole or not at all.
    package static func children(of data: Data, in range: Range<Int>) throws -> [Mp4Box] {
        var boxes: [Mp4Box] = []
        var offset = range.lowerBound
        while offset + 8 <= range.upperBound {
            var size = Int(data.uint32(at: offset))
            let type = data.fourCC(at: offset + 4)
            var header = 8
            if size == 1 {
                guard offset + 16 <= range.upperBound else {
                    throw Mp4Finishing.Failure.unexpectedLayout("truncated \(type) header")
                }
                size = Int(clamping: data.uint64(at: offset + 8))  // past Int.max: refused below, not a trap
                header = 16
            } else if size == 0 {
                size = range.upperBound - offset
            }
            guard size >= header, size <= range.upperBound - offset else {
                throw Mp4Finishing.Failure.unexpectedLayout("box \(type) at \(offset) has size \(size)")
            }
            boxes.append(Mp4Box(type: type, offset: offset, size: size, headerSize: header))
            offset += size
        }
        return boxes
    }

    /// The first child of `type`, or nil.
    package static func child(_ type: String, of box: Mp4Box, in data: Data) throws -> Mp4Box? {
        try children(of: data, in: box.payload).first { $0.type == type }
    }

    /// A full box's version byte (the first byte of its payload); 0 for a box too short to have one, which the
    /// length checks of its reader then refuse.
    package func version(in data: Data) -> UInt8 { payload.isEmpty ? 0 : data.uint8(at: payload.lowerBound) }

    /// A full box's 24 flag bits; 0 for a box too short to have them.
    package func flags(in data: Data) -> UInt32 {
        payload.count < 4 ? 0 : data.uint32(at: payload.lowerBound) & 0xFF_FFFF
    }

    /// A full box's 32-bit field `v0` bytes into its payload in version 0, `v1` in version 1 (the track ID of a
    /// `tkhd`, the timescale of an `mvhd` or `mdhd`). A box too short to hold it is an error, not a read past it.
    package func field(in data: Data, v0: Int, v1: Int) throws -> UInt32 {
        let at = payload.lowerBound + (version(in: data) == 1 ? v1 : v0)
        guard at + 4 <= end else { throw Mp4Finishing.Failure.unexpectedLayout("a \(type) of \(size) bytes") }
        return data.uint32(at: at)
    }
}

/// Builds a box from its type and payload.
package func mp4Box(_ type: String, _ payload: Data) -> Data {
    var box = Data()
    box.append(bigEndian: UInt32(payload.count + 8))
    box.append(fourCC: type)
    box.append(payload)
    return box
}

/// Builds a full box (version and flags first).
package func mp4FullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ body: Data) -> Data {
    var payload = Data()
    payload.append(bigEndian: UInt32(version) << 24 | flags & 0xFF_FFFF)
    payload.append(body)
    return mp4Box(type, payload)
}
