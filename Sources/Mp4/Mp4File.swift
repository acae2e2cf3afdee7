import Foundation

/// An MP4 file opened for finishing in place: its top-level boxes, and the few small reads and writes that
/// finishing needs (never the media).
package final class Mp4File {
    /// The top-level boxes, read from their headers only.
    package struct TopLevel {
        /// Boxes that lie wholly inside the file.
        package var boxes: [Mp4Box]
        /// A box that runs past the end of the file (an `mdat` still being written when the process stopped).
        package var tail: Mp4Box?
        /// Each whole `moov`, and whether it carries `mvex` (the index a fragmented file starts with).
        var moovs: [(box: Mp4Box, fragmented: Bool)]
        var ftypEnd: Int64

        package func first(_ type: String) -> Mp4Box? { boxes.first { $0.type == type } }
        /// The index of the first fragment, when the file is still fragmented.
        package var initialMoov: Mp4Box? { moovs.first { $0.fragmented }?.box }
    }

    private let handle: FileHandle
    private(set) var size: Int64
    private var closed = false

    /// `readOnly`: for reading an index only (the range video), never for finishing.
    package init(path: String, readOnly: Bool = false) throws {
        guard let handle = readOnly ? FileHandle(forReadingAtPath: path) : FileHandle(forUpdatingAtPath: path) else {
            throw Mp4Finishing.Failure.unreadable("cannot open \(path)")
        }
        self.handle = handle
        size = Int64(try handle.seekToEnd())
    }

    package func close() {
        guard !closed else { return }
        closed = true
        try? handle.close()
    }

    package func topLevel() throws -> TopLevel {
        var boxes: [Mp4Box] = []
        var moovs: [(box: Mp4Box, fragmented: Bool)] = []
        var tail: Mp4Box?
        var offset: Int64 = 0
        while offset + 8 <= size {
            let header = try read(at: offset, count: Int(min(16, size - offset)))
            var boxSize = Int64(header.uint32(at: 0))
            let type = header.fourCC(at: 4)
            var headerSize = 8
            if boxSize == 1 {
                guard header.count >= 16 else { break }
                // A 64-bit size past Int64.max is as wrong as one past the end of the file (and must not trap).
                boxSize = Int64(clamping: header.uint64(at: 8))
                headerSize = 16
            }
            guard boxSize >= Int64(headerSize), boxSize <= size - offset else {
                // Size 0 ("to the end"), or more than is there: what was being written when the process stopped.
                tail = Mp4Box(type: type, offset: Int(offset), size: Int(size - offset), headerSize: headerSize)
                break
            }
            let box = Mp4Box(type: type, offset: Int(offset), size: Int(boxSize), headerSize: headerSize)
            boxes.append(box)
            if type == "moov" {
                let moov = try read(box)
                let children = (try? Mp4Box.children(of: moov, in: box.headerSize..<moov.count)) ?? []
                moovs.append((box, children.contains { $0.type == "mvex" }))
            }
            offset += boxSize
        }
        let ftypEnd = boxes.first.map { $0.type == "ftyp" ? Int64($0.end) : 0 } ?? 0
        return TopLevel(boxes: boxes, tail: tail, moovs: moovs, ftypEnd: ftypEnd)
    }

    package func read(_ box: Mp4Box) throws -> Data { try read(at: Int64(box.offset), count: box.size) }

    package func read(at offset: Int64, count: Int) throws -> Data {
        try handle.seek(toOffset: UInt64(offset))
        let data = try handle.read(upToCount: count) ?? Data()
        guard data.count == count else {
            throw Mp4Finishing.Failure.unreadable("short read at \(offset) (\(data.count) of \(count) bytes)")
        }
        return data
    }

    package func write(_ data: Data, at offset: Int64) throws {
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: data)
        size = max(size, offset + Int64(data.count))
    }

    package func truncate(at offset: Int64) throws {
        try handle.truncate(atOffset: UInt64(offset))
        size = offset
    }

    package func sync() throws { try handle.synchronize() }

    /// Makes everything from `at` to `payloadEnd` one `mdat`, in one 16-byte write: `free`(8) + an 8-byte `mdat`
    /// header, or a 16-byte `mdat` header past 4 GiB. `at` holds such 16 bytes already (mp4mux's layout keeps them
    /// after `ftyp`), or the header of the first index (the DASH layout), which becomes dead bytes in the `mdat`.
    func writeMdatHeader(at: Int64, payloadEnd: Int64) throws {
        let current = try read(at: at, count: 16)
        let sixteen = current.uint32(at: 0) == 1 && current.fourCC(at: 4) == "mdat"
        let freeThenMdat =
            current.uint32(at: 0) == 8 && current.fourCC(at: 4) == "free" && current.fourCC(at: 12) == "mdat"
        let index = current.fourCC(at: 4) == "moov" && current.uint32(at: 0) >= 16
        guard sixteen || freeThenMdat || index else {
            throw Mp4Finishing.Failure.unexpectedLayout("no room for an mdat header at byte \(at)")
        }
        var header = Data()
        if payloadEnd - (at + 8) <= Int64(UInt32.max) {
            header.append(bigEndian: UInt32(8))
            header.append(fourCC: "free")
            header.append(bigEndian: UInt32(payloadEnd - (at + 8)))
            header.append(fourCC: "mdat")
        } else {
            header.append(bigEndian: UInt32(1))
            header.append(fourCC: "mdat")
            header.append(bigEndian: UInt64(payloadEnd - at))
        }
        try write(header, at: at)
    }

    /// Where a `hoov` box (a hidden first index: its `mvhd` right inside) starts between `from` and `to`.
    func findHiddenIndex(from: Int64, to: Int64) throws -> Int64? {
        let chunk = 1 << 20
        let needle = Data("hoov".utf8)
        var offset = from
        while offset < to {
            let count = Int(min(Int64(chunk + 16), size - offset))
            guard count >= 16 else { return nil }
            let data = try read(at: offset, count: count)
            var searchFrom = data.startIndex + 4
            while let found = data.range(of: needle, in: searchFrom..<(data.endIndex - 8)) {
                let i = found.lowerBound - data.startIndex
                if data.fourCC(at: i + 8) == "mvhd" {
                    let start = offset + Int64(i - 4)
                    let boxSize = Int64(data.uint32(at: i - 4))
                    if boxSize >= 16, start + boxSize <= size { return start }
                }
                searchFrom = found.lowerBound + 1
            }
            offset += Int64(chunk)
        }
        return nil
    }
}
