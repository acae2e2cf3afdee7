import ApplianceProtocol
import Foundation
import GRDB

/// The backup queue's queries (`backup_jobs`).
extension Library {
    /// Adds a job unless an equal one is already waiting; an upload replaces nothing, a delete cancels waiting uploads.
    @discardableResult
    public func enqueueBackup(_ kind: BackupJob.Kind, recordingId: String, remotePath: String? = nil) async throws
        -> BackupJob?
    {
        try await database.write { db -> BackupJob? in
            let open = try BackupJob.filter(
                literal: "recording_id = \(recordingId) AND state IN \(BackupJob.State.open)"
            ).fetchAll(db)
            if kind == .upload, open.contains(where: { $0.kind == .upload }) { return nil }
            if kind == .delete {
                try db.execute(
                    literal: """
                        UPDATE backup_jobs
                        SET state = \(BackupJob.State.done), last_error = 'cancelled: recording deleted',
                          updated_at = \(Self.nowMs)
                        WHERE recording_id = \(recordingId) AND kind = \(BackupJob.Kind.upload)
                          AND state = \(BackupJob.State.pending)
                        """)
            }
            let now = Date()
            var job = BackupJob(
                id: nil, recordingId: recordingId, kind: kind, state: .pending, attempts: 0, nextAttemptAt: now,
                lastError: nil, remotePath: remotePath, resume: nil, createdAt: now, updatedAt: now)
            try job.insert(db)
            return job
        }
    }

    /// The next job that is due (oldest first), claimed as `running`; or the time the next one becomes due.
    package func claimNextBackup(now: Date = Date()) async throws -> (job: BackupJob?, nextDue: Date?) {
        try await database.write { db in
            let due = Int64(now.timeIntervalSince1970 * 1000)
            if var job = try BackupJob.filter(
                literal: "state = \(BackupJob.State.pending) AND next_attempt_at <= \(due)"
            )
            .order(sql: "next_attempt_at, id").fetchOne(db) {
                job.state = .running
                job.updatedAt = now
                try job.update(db)
                return (job, nil)
            }
            let next = try SQLRequest<Int64>(
                literal: "SELECT MIN(next_attempt_at) FROM backup_jobs WHERE state = \(BackupJob.State.pending)"
            ).fetchOne(db)
            return (nil, next.map { Date(timeIntervalSince1970: Double($0) / 1000) })
        }
    }

    package func finishBackup(_ job: BackupJob, state: BackupJob.State, error: String?, retryAt: Date? = nil)
        async throws
    {
        var updated = job
        updated.state = state
        updated.lastError = error
        updated.updatedAt = Date()
        if let retryAt {
            updated.attempts += 1
            updated.nextAttemptAt = retryAt
        }
        let final = updated
        // Not `resume`: the upload keeps it up to date while it runs (`saveBackupResume`).
        try await database.write { db in
            try final.update(
                db,
                columns: [
                    BackupJob.CodingKeys.state.rawValue, BackupJob.CodingKeys.lastError.rawValue,
                    BackupJob.CodingKeys.updatedAt.rawValue, BackupJob.CodingKeys.attempts.rawValue,
                    BackupJob.CodingKeys.nextAttemptAt.rawValue,
                ])
        }
    }

    /// Where the job's upload stands on the server (nil: nothing to go on from).
    package func saveBackupResume(jobId: Int64, _ resume: String?) async throws {
        try await database.write { db in
            try db.execute(
                literal: "UPDATE backup_jobs SET resume = \(resume), updated_at = \(Self.nowMs) WHERE id = \(jobId)")
        }
    }

    /// Jobs a dead process left claimed go back to the queue.
    package func releaseClaimedBackups() async throws {
        try await database.write { db in
            try db.execute(
                literal:
                    """
                    UPDATE backup_jobs SET state = \(BackupJob.State.pending), updated_at = \(Self.nowMs)
                    WHERE state = \(BackupJob.State.running)
                    """
            )
        }
    }

    /// `backup retry`: failed jobs (or one recording's) become due now; attempts start again.
    package func retryBackups(recordingId: String?) async throws -> Int {
        try await database.write { db in
            var sql: SQL = """
                UPDATE backup_jobs SET state = \(BackupJob.State.pending), attempts = 0, next_attempt_at = \(Self.nowMs)
                WHERE state IN \([BackupJob.State.failed, .pending])
                """
            if let recordingId { sql += " AND recording_id = \(recordingId)" }
            try db.execute(literal: sql)
            return db.changesCount
        }
    }

    package func backupCounts() async throws -> BackupCounts {
        try await database.read { db in
            var counts = BackupCounts()
            for row in try Row.fetchAll(db, sql: "SELECT state, COUNT(*) FROM backup_jobs GROUP BY state") {
                switch BackupJob.State(rawValue: row[0]) {
                case .pending?: counts.pending = row[1]
                case .running?: counts.running = row[1]
                case .done?: counts.done = row[1]
                case .failed?: counts.failed = row[1]
                case nil: break
                }
            }
            return counts
        }
    }

    /// When the latest upload finished (metrics: last successful upload).
    package func lastBackupAt() async throws -> Date? {
        try await database.read { db in
            try Int64.fetchOne(db, sql: "SELECT MAX(backed_up_at) FROM recordings").map {
                Date(timeIntervalSince1970: Double($0) / 1000)
            }
        }
    }

    package func lastBackupError() async throws -> String? {
        try await database.read { db in
            try SQLRequest<String>(
                literal: """
                    SELECT last_error FROM backup_jobs WHERE last_error IS NOT NULL AND state != \(BackupJob.State.done)
                    ORDER BY updated_at DESC LIMIT 1
                    """
            ).fetchOne(db)
        }
    }

    /// Recordings finished before backup was configured (or while it was off) that have no job yet.
    package func recordingsWithoutBackup(onlyLocked: Bool) async throws -> [String] {
        try await database.read { db in
            let notUploaded: [Recording.BackupState] = [.none, .pending, .uploading]
            let queued: [BackupJob.State] = [.pending, .running, .failed]
            return try SQLRequest<String>(
                literal: """
                    SELECT id FROM recordings
                    WHERE state IN \(Recording.State.finished) AND backup_state IN \(notUploaded)
                      AND (\(onlyLocked) = 0 OR locked = 1)
                      AND id NOT IN (SELECT recording_id FROM backup_jobs
                                     WHERE kind = \(BackupJob.Kind.upload) AND state IN \(queued))
                    ORDER BY created_at
                    """
            ).fetchAll(db)
        }
    }

    package static var nowMs: Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
