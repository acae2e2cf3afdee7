import ApplianceProtocol
import Foundation
import GRDB

/// A row of `backup_jobs`: one upload or remote deletion, durable across restarts.
public struct BackupJob: Codable, Sendable, Equatable, FetchableRecord, MutablePersistableRecord {
    public static let databaseTableName = "backup_jobs"
    public static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .millisecondsSince1970
    }
    public static func databaseDateDecodingStrategy(for column: String) -> DatabaseDateDecodingStrategy {
        .millisecondsSince1970
    }

    public enum Kind: String, Codable, Sendable { case upload, delete }
    /// `running` is a claim: a job left `running` by a process that died goes back to `pending` at start-up.
    public enum State: String, Codable, Sendable { case pending, running, done, failed }

    public var id: Int64?
    public var recordingId: String
    public var kind: Kind
    public var state: State
    public var attempts: Int
    public var nextAttemptAt: Date
    public var lastError: String?
    public var remotePath: String?
    /// Where an interrupted upload stands on the server (the target's own JSON), for a restart to go on from.
    public var resume: String?
    public var createdAt: Date
    public var updatedAt: Date

    package enum CodingKeys: String, CodingKey {
        case id, kind, state, attempts
        case recordingId = "recording_id", nextAttemptAt = "next_attempt_at", lastError = "last_error"
        case remotePath = "remote_path", resume, createdAt = "created_at", updatedAt = "updated_at"
    }

    public mutating func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

extension BackupJob.Kind: DatabaseValueConvertible {}
extension BackupJob.State: DatabaseValueConvertible {
    /// Jobs still to do: waiting or claimed.
    package static let open: [BackupJob.State] = [.pending, .running]
}
