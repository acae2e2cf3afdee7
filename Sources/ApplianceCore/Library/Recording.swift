import Foundation
import GRDB

/// A row of table `recordings`: one clip and everything known about it.
public struct Recording: Codable, Sendable, Equatable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "recordings"
    /// Dates are stored as integer milliseconds since 1970: exact sort keys, compact, and easy to query.
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy { .millisecondsSince1970 }
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy { .millisecondsSince1970 }

    /// Life cycle: `recording` while being written, `complete` after a normal stop, `recovered` when start-up
    /// recovery rescued it after a crash, `failed` when its file is gone (`failure_reason` says why).
    public enum State: String, Codable, Sendable, DatabaseValueConvertible {
        case recording, complete, recovered, failed
    }

    /// Backup progress, filled by the backup uploader (a later feature): `none` until then.
    public enum BackupState: String, Codable, Sendable, DatabaseValueConvertible {
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
    /// Absolute path of the media file (partial/ while recording).
    public var path: String
    public var thumbnail: String?
    public var state: State
    public var failureReason: String?
    public var locked: Bool
    public var note: String?
    public var backupState: BackupState
    public var backupRemotePath: String?
    public var backupError: String?
    public var backupAttempts: Int
    public var backedUpAt: Date?

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

    enum CodingKeys: String, CodingKey, ColumnExpression {
        case id, title
        case createdAt = "created_at", startedAt = "started_at", endedAt = "ended_at"
        case durationMs = "duration_ms", sizeBytes = "size_bytes", width, height, framerate
        case videoCodec = "video_codec", audioCodec = "audio_codec", audioPresent = "audio_present"
        case camera, path, thumbnail, state, failureReason = "failure_reason", locked, note
        case backupState = "backup_state", backupRemotePath = "backup_remote_path", backupError = "backup_error"
        case backupAttempts = "backup_attempts", backedUpAt = "backed_up_at"
    }

}
