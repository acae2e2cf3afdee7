import ApplianceBase
import ApplianceProtocol
import Foundation
import GRDB

/// What retention and protection ask of the database: sums and the oldest few rows, so a pass over 100,000 clips
/// reads aggregates and a handful of rows, never the whole table.
extension Library {
    /// A finished clip as retention sees it.
    package struct RetentionCandidate: Sendable {
        package var id: String
        package var path: String
        package var thumbnail: String?
        package var createdAt: Date
        package var sizeBytes: Int64
        package var locked: Bool
        package var backupState: Recording.BackupState
        package var backedUp: Bool { backupState == .done }
    }

    package struct Usage: Sendable {
        package var bytes: Int64 = 0
        package var lockedBytes: Int64 = 0
        package var unlockedCount = 0
        /// Bytes over seconds of the latest clips (for the time until the disk wraps).
        package var recentBytesPerSecond: Double?
        package var oldestUnlocked: Date?
    }

    /// `+state` in the second query keeps SQLite on the created_at index, newest first, stopping after 20 rows;
    /// on the state index it sorted all 100,000 (70 ms).
    package func usage() async throws -> Usage {
        try await database.read { db in
            var usage = Usage()
            let totals: SQLRequest<Row> = """
                SELECT COALESCE(SUM(size_bytes), 0), COALESCE(SUM(CASE WHEN locked THEN size_bytes ELSE 0 END), 0),
                       COALESCE(SUM(CASE WHEN locked THEN 0 ELSE 1 END), 0),
                       MIN(CASE WHEN locked THEN NULL ELSE created_at END)
                FROM recordings WHERE state IN \(Recording.State.finished)
                """
            if let row = try totals.fetchOne(db) {
                usage.bytes = row[0]
                usage.lockedBytes = row[1]
                usage.unlockedCount = row[2]
                usage.oldestUnlocked = (row[3] as Int64?).map(Recording.date)
            }
            let recent: SQLRequest<Row> = """
                SELECT SUM(size_bytes), SUM(duration_ms) FROM (
                    SELECT size_bytes, duration_ms FROM recordings
                    WHERE +state IN \(Recording.State.finished) AND duration_ms > 0 AND size_bytes > 0
                    ORDER BY created_at DESC LIMIT 20)
                """
            if let row = try recent.fetchOne(db), let bytes = row[0] as Int64?, let ms = row[1] as Int64?, ms > 0 {
                usage.recentBytesPerSecond = Double(bytes) / (Double(ms) / 1000)
            }
            return usage
        }
    }

    /// How far back from a channel's newest clip its last hour reaches (ms): retention deletes it last.
    package static let channelLastHourMs: Int64 = 3_600_000

    /// The oldest finished clips after `cursor` (created_at ms, rowid), oldest first.
    /// `locked`: locked or unlocked ones; `backedUp`: nil for any, else only those whose backup is (not) done;
    /// `hasEvent`: nil for any, else only those that do (not) cover an activity; `weight`: only those whose heaviest
    /// activity weighs that (`EventWeight`); `inLastHour`: nil for any, else only those that are (not) within their
    /// channel's last hour of recording (an hour back from the channel's newest clip).
    package func oldest(
        locked: Bool, backedUp: Bool?, hasEvent: Bool? = nil, weight: EventWeight? = nil, olderThan: Date? = nil,
        inLastHour: Bool? = nil, after cursor: (Int64, Int64)?, limit: Int
    ) async throws
        -> (rows: [RetentionCandidate], cursor: (Int64, Int64)?)
    {
        try await database.read { db in
            var sql: SQL = """
                SELECT id, path, thumbnail, created_at, COALESCE(size_bytes, 0), locked, backup_state, rowid
                FROM recordings
                WHERE state IN \(Recording.State.finished) AND locked = \(locked)
                """
            let done = Recording.BackupState.done
            if let backedUp { sql += backedUp ? " AND backup_state = \(done)" : " AND backup_state <> \(done)" }
            if let hasEvent { sql += hasEvent ? " AND has_event > 0" : " AND has_event = 0" }
            if let weight { sql += " AND has_event = \(weight.rawValue)" }
            if let olderThan { sql += " AND created_at < \(Recording.milliseconds(olderThan))" }
            if let inLastHour {
                let lastHour: SQL = """
                    created_at >= (SELECT MAX(r2.created_at) FROM recordings r2 WHERE r2.channel IS recordings.channel)
                      - \(Self.channelLastHourMs)
                    """
                sql += inLastHour ? " AND \(lastHour)" : " AND NOT (\(lastHour))"
            }
            if let cursor { sql += " AND (created_at, rowid) > (\(cursor.0), \(cursor.1))" }
            sql += " ORDER BY created_at, rowid LIMIT \(limit)"
            var last: (Int64, Int64)?
            let rows = try SQLRequest<Row>(literal: sql).fetchAll(db).map { row -> RetentionCandidate in
                last = (row[3], row[7])
                return RetentionCandidate(
                    id: row[0], path: row[1], thumbnail: row[2], createdAt: Recording.date(row[3]),
                    sizeBytes: row[4], locked: row[5], backupState: row[6])
            }
            return (rows, last)
        }
    }

    /// Rows whose time span meets [from, to]: finished clips by their start and end, the one being written by its
    /// start. `longest`: no clip runs longer (bounds the index walk). Oldest first.
    package func overlapping(from: Date, to: Date, longest: TimeInterval) async throws -> [Recording] {
        try await database.read { db in
            let (earliest, latest) = (
                Recording.milliseconds(from.addingTimeInterval(-longest)), Recording.milliseconds(to)
            )
            let request: SQLRequest<Recording> = """
                SELECT * FROM recordings
                WHERE created_at BETWEEN \(earliest) AND \(latest)
                  AND (ended_at >= \(Recording.milliseconds(from))
                       OR (ended_at IS NULL AND state = \(Recording.State.recording)))
                  AND state <> \(Recording.State.failed)
                ORDER BY created_at, rowid
                """
            return try request.fetchAll(db)
        }
    }

    /// Whether segment `segment` of `group` still has a row.
    package func hasSegment(group: String, segment: Int) async throws -> Bool {
        try await database.read { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS(SELECT 1 FROM recordings WHERE group_id = ? AND segment_index = ?)",
                arguments: [group, segment]) ?? false
        }
    }
}
