import ApplianceBase
import ApplianceProtocol
import Engine
import Foundation
import FrontEndInterface
import MediaLibrary
import Mp4

/// The front ends' `MediaFiles`: the library's rows and the data folder's files, found by id.
public struct MediaCatalog: MediaFiles {
    let library: Library
    let data: DataDirectory
    /// The longest a file can last (a loop segment, or a clip's maximum): how far before a range to look for a
    /// file that covers its start.
    var longestFileS: TimeInterval = 3660
    /// Every channel's name, the first first (`[[channel]]`). A range video is made of one channel's files: one
    /// video holds one picture, and another channel's file (another size, or another camera) ended it or was cut
    /// into it. The first channel's include the rows from before channels, which name none.
    public var channels: [String] = []

    /// The recording with exactly this id (no prefixes: URLs name whole ids), or nil.
    public func recording(id: String) async throws -> Recording? {
        guard Self.isID(id) else { return nil }
        return try await library.fetch(id: id)
    }

    /// The share link for `token` if it still works.
    public func share(token: String) async throws -> ShareLink? {
        guard !token.isEmpty, token.count <= 128,
            token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") })
        else {
            return nil
        }
        return try await library.share(token: token)
    }

    /// A snapshot's file, if `id` is a snapshot's id and its file exists.
    public func snapshotPath(id: String) -> String? {
        guard Self.isID(id) else { return nil }
        let path = data.snapshotPath(id: id)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }

    /// One video of what `channel` (nil: the first) recorded from `from` to `to` (at most `RangeVideo.longest`
    /// apart), built from the finished files over that range; throws when nothing playable was recorded then.
    public func rangeVideo(from: Date, to: Date, channel: String? = nil) async throws -> RangeVideo {
        let first = channels.first
        let sources = try await library.rangeSources(
            from: from, to: to, longest: longestFileS, channel: channel ?? first, firstChannel: first)
        var builder = RangeVideoBuilder(from: from, to: to)
        for source in sources {
            // A file deleted since the query, or one that cannot be read, is a gap in the video, not a failure.
            guard let movie = try? Mp4Movie.read(path: source.path) else { continue }
            if !builder.add(source, movie: movie) { break }
        }
        return try builder.build()
    }

    /// A clip's scrubbing previews: when each was taken (seconds from its first frame, within its length) and
    /// where; empty when it has none.
    public func scrubPreviews(id: String) async throws -> [ScrubPreview] {
        guard let recording = try await recording(id: id) else { return [] }
        let length = recording.durationMs.map { Double($0) / 1000 }
        return ScrubPack.entries(path: data.scrubPath(id: id)).enumerated().compactMap { index, entry in
            let offset = Double(entry.offsetMs) / 1000
            if let length, offset > length { return nil }
            return ScrubPreview(index: index, offsetS: offset)
        }
    }

    /// The JPEG of a clip's preview number `index`.
    public func scrubJPEG(id: String, index: Int) -> Data? {
        guard Self.isID(id) else { return nil }
        let path = data.scrubPath(id: id)
        let entries = ScrubPack.entries(path: path)
        guard entries.indices.contains(index) else { return nil }
        return ScrubPack.jpeg(path: path, entry: entries[index])
    }

    /// The preview shown for a moment: the last one taken at or before it in the file `channel` (nil: the first)
    /// recorded then. Nil when nothing was recorded then, or that file has no previews.
    public func scrubJPEG(at moment: Date, channel: String? = nil) async throws -> (
        jpeg: Data, recordingId: String, takenAt: Date
    )? {
        let first = channels.first
        guard
            let file = try await library.recordingAt(
                moment, longest: longestFileS, channel: channel ?? first, firstChannel: first)
        else { return nil }
        let path = data.scrubPath(id: file.id)
        guard
            let entry = ScrubPack.entry(
                at: moment.timeIntervalSince(file.start) * 1000, in: ScrubPack.entries(path: path)),
            let jpeg = ScrubPack.jpeg(path: path, entry: entry)
        else { return nil }
        return (jpeg, file.id, file.start.addingTimeInterval(Double(entry.offsetMs) / 1000))
    }

    /// When the last clip finished uploading, if any did.
    public func lastBackup() async throws -> Date? {
        try await library.lastBackupAt()
    }

    /// Ids are UUID text: hex digits and dashes, nothing that can walk a path.
    static func isID(_ text: String) -> Bool {
        (8...64).contains(text.count) && text.allSatisfy { $0.isHexDigit || $0 == "-" }
    }
}
