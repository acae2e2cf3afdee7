import Foundation
import Mp4

/// A file's scrubbing previews on disk, beside its thumbnail (`<id>.scrub`): small JPEGs appended as they come,
/// each after an 8-byte header (its length and its time from the file's first frame in milliseconds, both 32-bit
/// big-endian). Append-only and never synced: previews help to find a moment, and a torn last record after a crash
/// is simply not read. Read by walking the headers (a 10 s segment holds 5, an hour's clip 1,800).
package enum ScrubPack {
    package struct Entry: Equatable, Sendable {
        /// Milliseconds from the file's first frame.
        package var offsetMs: UInt32
        /// Where its JPEG starts in the pack, and its length.
        package var position: Int64
        package var length: Int

        package init(offsetMs: UInt32, position: Int64, length: Int) {
            self.offsetMs = offsetMs
            self.position = position
            self.length = length
        }
    }

    package static let headerSize = 8
    /// A record claiming more than this is damage, not a preview.
    package static let largestFrame = 1 << 20

    package static func record(jpeg: [UInt8], offsetMs: UInt32) -> Data {
        var data = Data(capacity: headerSize + jpeg.count)
        data.append(bigEndian: UInt32(jpeg.count))
        data.append(bigEndian: offsetMs)
        data.append(contentsOf: jpeg)
        return data
    }

    /// Appends records to `path` (created if missing).
    package static func append(_ records: Data, to path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            _ = FileManager.default.createFile(atPath: path, contents: nil)
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw CocoaError(.fileWriteUnknown) }
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: records)
    }

    /// The whole records of a pack, in the order written; empty when there is none.
    package static func entries(path: String) -> [Entry] {
        guard let handle = FileHandle(forReadingAtPath: path) else { return [] }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return [] }
        var entries: [Entry] = []
        var position: UInt64 = 0
        while position + UInt64(headerSize) <= size {
            guard (try? handle.seek(toOffset: position)) != nil, let header = try? handle.read(upToCount: headerSize),
                header.count == headerSize
            else { break }
            let length = Int(header.uint32(at: 0))
            let start = position + UInt64(headerSize)
            guard length > 0, length <= largestFrame, start + UInt64(length) <= size else { break }
            entries.append(Entry(offsetMs: header.uint32(at: 4), position: Int64(start), length: length))
            position = start + UInt64(length)
        }
        return entries
    }

    package static func jpeg(path: String, entry: Entry) -> Data? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: UInt64(entry.position))) != nil else { return nil }
        return try? handle.read(upToCount: entry.length)
    }

    /// The entry shown at `offsetMs`: the last one at or before it (the first one before the first).
    package static func entry(at offsetMs: Double, in entries: [Entry]) -> Entry? {
        entries.last { Double($0.offsetMs) <= offsetMs } ?? entries.first
    }
}
