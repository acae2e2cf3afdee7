import Foundation

/// One MP4 for a time range recorded in several files, made of the files' own samples: a new index (`ftyp`, `moov`
/// and an `mdat` header, in memory) followed by the stretches of the files that hold the samples, read from them
/// as they are sent. Nothing is re-encoded or copied to disk; the index puts the `moov` first, so a player starts
/// before the end arrives.
public struct RangeVideo: Sendable {
    /// The longest range one video covers: an hour of 30 fps video and AAC sound needs a 2.5 MB index, which a
    /// player reads before its first frame.
    public static let longest: TimeInterval = 3 * 3600

    public enum Failure: Error, CustomStringConvertible {
        case nothingRecorded
        public var description: String { "nothing playable was recorded in that range" }
    }

    public enum Part: Sendable, Equatable {
        case bytes(Data)
        /// `length` bytes of `path` from `offset`.
        case file(path: String, offset: Int64, length: Int64)

        public var length: Int64 {
            switch self {
            case .bytes(let data): Int64(data.count)
            case .file(_, _, let length): length
            }
        }
    }

    /// Where a recording's picture begins in the video, and when that was: gaps between files are left out, so
    /// the video's clock and the wall clock differ by a step at each.
    public struct Piece: Sendable, Equatable {
        public var recordingId: String
        /// Seconds from the start of the video.
        public var offset: Double
        public var start: Date
        public var duration: Double
        /// When the recording's own first frame was (before `start` when the video begins inside it).
        public var recordingStart: Date
    }

    public let parts: [Part]
    public let pieces: [Piece]
    /// The first frame: the keyframe at or before the start asked for.
    public var start: Date { pieces.first?.start ?? .distantPast }
    public var end: Date { pieces.last.map { $0.start.addingTimeInterval($0.duration) } ?? .distantPast }
    public var duration: Double { pieces.last.map { $0.offset + $0.duration } ?? 0 }
    public var size: Int64 { parts.reduce(0) { $0 + $1.length } }
    /// Names this exact sequence of bytes: finished files never change, so their ids and the stretches used do.
    public let etag: String

    package init(parts: [Part], pieces: [Piece]) {
        self.parts = parts
        self.pieces = pieces
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a
        func mix(_ text: String) { for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 } }
        for piece in pieces { mix("\(piece.recordingId)@\(piece.offset)+\(piece.duration);") }
        for part in parts { mix(String(part.length) + ",") }
        etag = "\"r" + String(hash, radix: 16) + "\""
    }

    /// The time in the video for a wall-clock moment, or nil when nothing was recorded then.
    public func offset(at moment: Date) -> Double? {
        guard let piece = pieces.last(where: { $0.start <= moment }),
            moment.timeIntervalSince(piece.start) <= piece.duration
        else { return nil }
        return piece.offset + moment.timeIntervalSince(piece.start)
    }
}
