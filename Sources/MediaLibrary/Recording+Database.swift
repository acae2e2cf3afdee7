import ApplianceProtocol
import Foundation
import GRDB

/// A recording object is a row of table `recordings`. The columns are mapped by hand rather than through Codable
/// with snake_case conversion: converting column names for every row of every page made `list` three times slower.
/// Dates are integer milliseconds since 1970 (exact sort keys, compact, easy to query).
extension Recording: FetchableRecord, PersistableRecord {
    public static let databaseTableName = "recordings"

    public init(row: Row) throws {
        self.init(
            id: row["id"], title: row["title"], createdAt: Self.date(row["created_at"]), path: row["path"],
            state: row["state"])
        startedAt = (row["started_at"] as Int64?).map(Self.date)
        endedAt = (row["ended_at"] as Int64?).map(Self.date)
        durationMs = row["duration_ms"]
        sizeBytes = row["size_bytes"]
        (width, height, framerate) = (row["width"], row["height"], row["framerate"])
        (videoCodec, audioCodec, audioPresent) = (row["video_codec"], row["audio_codec"], row["audio_present"])
        (camera, thumbnail, failureReason) = (row["camera"], row["thumbnail"], row["failure_reason"])
        channel = row["channel"]
        (locked, note, lockReason) = (row["locked"], row["note"], row["lock_reason"])
        (group, segment) = (row["group_id"], row["segment_index"])
        (backupState, backupRemotePath, backupError) = (
            row["backup_state"], row["backup_remote_path"], row["backup_error"]
        )
        backupAttempts = row["backup_attempts"]
        backedUpAt = (row["backed_up_at"] as Int64?).map(Self.date)
        // Written only by `Library.redate` (so never by `encode`: an update cannot undo a re-dating).
        redatedMs = (row["redated_ms"] as Int64?).flatMap { $0 == 0 ? nil : $0 }
    }

    public func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["title"] = title
        container["created_at"] = Self.milliseconds(createdAt)
        container["started_at"] = startedAt.map(Self.milliseconds)
        container["ended_at"] = endedAt.map(Self.milliseconds)
        container["duration_ms"] = durationMs
        container["size_bytes"] = sizeBytes
        container["width"] = width
        container["height"] = height
        container["framerate"] = framerate
        container["video_codec"] = videoCodec
        container["audio_codec"] = audioCodec
        container["audio_present"] = audioPresent
        container["camera"] = camera
        container["channel"] = channel
        container["path"] = path
        container["thumbnail"] = thumbnail
        container["state"] = state
        container["failure_reason"] = failureReason
        container["locked"] = locked
        container["note"] = note
        container["lock_reason"] = lockReason
        container["group_id"] = group
        container["segment_index"] = segment
        container["backup_state"] = backupState
        container["backup_remote_path"] = backupRemotePath
        container["backup_error"] = backupError
        container["backup_attempts"] = backupAttempts
        container["backed_up_at"] = backedUpAt.map(Self.milliseconds)
    }

    package static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }

    /// Truncated, as GRDB's `.millisecondsSince1970` strategy stored them.
    package static func milliseconds(_ date: Date) -> Int64 { Int64(floor(date.timeIntervalSince1970 * 1000)) }
}

extension Recording.State: DatabaseValueConvertible {
    /// States whose file is finished and counted (a `recording` row's file is still being written). In SQL through
    /// interpolation: `state IN \(Recording.State.finished)`.
    package static let finished: [Recording.State] = [.complete, .recovered]
}
extension Recording.BackupState: DatabaseValueConvertible {}
