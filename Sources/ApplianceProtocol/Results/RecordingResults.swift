import Foundation

/// What `record.start` answers.
public struct RecordingStarted: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public var partialPath: String
    public var createdAt: Date
    /// Loop recording: the recording's group id (its first segment's id) and this segment's number.
    public var group: String?
    public var segment: Int?
    /// The channel that records it (`[[channel]]`; `main` without channel tables).
    public var channel: String?

    public init(id: String, title: String, partialPath: String, createdAt: Date) {
        (self.id, self.title, self.partialPath, self.createdAt) = (id, title, partialPath, createdAt)
    }
}

/// Why a recording ended.
public enum StopReason: String, Codable, Sendable {
    /// `record.stop` from any front end.
    case request
    /// `[recording] max_duration_s` reached.
    case maxDuration = "max_duration"
    /// The daemon was asked to stop (SIGTERM, SIGINT).
    case shutdown
    /// Loop recording: `[recording] segment_s` reached; the recording goes on in the next segment.
    case segment
    /// Retention could free no space (`[storage] on_full = "stop"`), or the disk filled up.
    case storageFull = "storage_full"
    /// Writing the file failed (the disk filled up, the storage went away): the file ends at its last index
    /// update; recording resumes in a new file once there is room again.
    case writeFailed = "write_failed"
    /// The storage holding the data folder went away (unplugged, unmounted); recording resumes when it is back.
    case storageMissing = "storage_missing"
    /// The video encoder failed while recording: the file ends with the last frame it gave, and the recording goes
    /// on in a new file with the next encoder (`encoder_failed`).
    case encoderFailed = "encoder_failed"
}

/// What `record.stop` answers: the finished clip with its measured timing.
public struct RecordingResult: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    /// Absolute path of the finished MP4.
    public var path: String
    /// Absolute path of the JPEG thumbnail, or absent if none could be made.
    public var thumbnail: String?
    public var durationMs: Int
    public var videoFrames: UInt64
    public var droppedFrames: UInt64
    public var audioDurationMs: Int?
    /// First audio minus first video running time, ms.
    public var avOffsetMs: Double?
    public var sizeBytes: Int64
    public var width: Int
    public var height: Int
    public var framerate: Int
    public var createdAt: Date
    public var endedAt: Date
    public var stopReason: StopReason
    /// Loop recording: the group id and this segment's number (see `Recording.group`).
    public var group: String?
    public var segment: Int?
    /// The channel that recorded it.
    public var channel: String?
    /// From the start request to the first frame entering the recording bin.
    public var startLatencyMs: Double?
    /// From the last frame entering the recording bin to the finalised, moved file (this answer).
    public var stopLatencyMs: Double?

    public init(
        id: String, title: String, path: String, thumbnail: String?, durationMs: Int, videoFrames: UInt64,
        droppedFrames: UInt64, audioDurationMs: Int?, avOffsetMs: Double?, sizeBytes: Int64, width: Int,
        height: Int, framerate: Int, createdAt: Date, endedAt: Date, stopReason: StopReason,
        startLatencyMs: Double?, stopLatencyMs: Double?
    ) {
        (self.id, self.title, self.path, self.thumbnail) = (id, title, path, thumbnail)
        (self.durationMs, self.videoFrames, self.droppedFrames, self.audioDurationMs) = (
            durationMs, videoFrames, droppedFrames, audioDurationMs
        )
        (self.avOffsetMs, self.sizeBytes, self.width, self.height) = (avOffsetMs, sizeBytes, width, height)
        (self.framerate, self.createdAt, self.endedAt, self.stopReason) = (framerate, createdAt, endedAt, stopReason)
        (self.startLatencyMs, self.stopLatencyMs) = (startLatencyMs, stopLatencyMs)
    }
}

/// What `snapshot` answers.
public struct SnapshotResult: Codable, Sendable, Equatable {
    public var id: String
    public var path: String
    public var width: Int
    public var height: Int

    public init(id: String, path: String, width: Int, height: Int) {
        (self.id, self.path, self.width, self.height) = (id, path, width, height)
    }
}

/// What `ping` answers.
public struct Pong: Codable, Sendable, Equatable {
    public var pong = true
    public init() {}
}
