import Foundation

/// A recording object: one clip and everything known about it (a row of table `recordings`; the database mapping
/// lives in MediaLibrary's Library). Absent values are omitted on the wire.
public struct Recording: Codable, Sendable, Equatable {
    /// Life cycle: `recording` while being written, `complete` after a normal stop, `recovered` when start-up
    /// recovery rescued it after a crash, `failed` when its file is gone or nothing was recorded
    /// (`failure_reason` says why).
    public enum State: String, Codable, Sendable, CaseIterable {
        case recording, complete, recovered, failed
    }

    /// Backup progress, kept by the backup uploader: `none` until backup is configured.
    public enum BackupState: String, Codable, Sendable, CaseIterable {
        case none, pending, uploading, done, failed, skipped
    }

    public var id: String
    public var title: String
    public var createdAt: Date
    public var startedAt: Date?
    public var endedAt: Date?
    public var durationMs: Int?
    public var sizeBytes: Int64?
    public var width: Int?
    public var height: Int?
    public var framerate: Int?
    public var videoCodec: String?
    public var audioCodec: String?
    public var audioPresent: Bool
    /// The camera(s) used, comma-separated in the order they were active.
    public var camera: String?
    /// The channel that recorded it (`[[channel]]`; "main" without channel tables). Absent on clips recorded before
    /// channels: they are the first channel's.
    public var channel: String?
    /// Absolute path of the media file (partial/ while recording).
    public var path: String
    public var thumbnail: String?
    public var state: State
    public var failureReason: String?
    public var locked: Bool
    /// Why the clip is locked: "user" (`lock`), "event" (`protect`, a shutter's long press).
    public var lockReason: String?
    /// Loop recording: the continuous recording this segment belongs to (the first segment's id), and the
    /// segment's place in it (1, 2, …). Absent for a clip recorded in one file.
    public var group: String?
    public var segment: Int?
    /// In a grouped `list` only: how many files the loop recording has (its `duration_ms` and `size_bytes` are
    /// then those of all of them, `ended_at` the last one's).
    public var segments: Int?
    public var note: String?
    public var backupState: BackupState
    public var backupRemotePath: String?
    public var backupError: String?
    public var backupAttempts: Int
    public var backedUpAt: Date?
    /// How far the clip's times were moved because the wall clock jumped after it was recorded (milliseconds;
    /// absent when never): a board without a clock battery boots with a wrong clock, and the clips of that boot are
    /// dated again by the clock once it is set (docs/RECORDING.md, "Time").
    public var redatedMs: Int64?

    public init(id: String, title: String, createdAt: Date, path: String, state: State) {
        self.id = id
        self.title = title
        self.createdAt = createdAt
        self.path = path
        self.state = state
        audioPresent = false
        locked = false
        backupState = .none
        backupAttempts = 0
    }
}

extension Recording {
    /// When the file's first frame was taken: `startedAt`, noted from the pipeline's clock; for a row without it,
    /// its creation, or earlier by a clip's pre-roll (its end minus its duration, when that is earlier; the end is
    /// written after the stop, so it runs a little late). Nil until the file is finished.
    public var mediaStart: Date? {
        guard let ended = endedAt, let ms = durationMs else { return nil }
        return startedAt ?? min(createdAt, ended.addingTimeInterval(-Double(ms) / 1000))
    }
}
