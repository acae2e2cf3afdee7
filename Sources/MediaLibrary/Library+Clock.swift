import ApplianceBase
import Foundation
import GRDB

/// Dating rows again when the wall clock jumped. A row written live carries its boot and the boot clock's
/// milliseconds at its start (`stampBoot`); the wall time of that moment, by the clock as it is now, is
/// `boot_ms + offset` (`BootClock.offsetMs`). Rows of this boot whose date is off from that by more than 2 s were
/// dated by a clock that has jumped since: they move by the difference, their end and start with them.
extension Library {
    /// What a re-dating moved.
    package struct Redated: Sendable, Equatable {
        package var recordings = 0
        package var activities = 0

        package init(recordings: Int = 0, activities: Int = 0) {
            (self.recordings, self.activities) = (recordings, activities)
        }
        package var isEmpty: Bool { recordings == 0 && activities == 0 }
    }

    /// Stamps the row `rowid` of `table` with this boot and the boot clock at `wallMs` (a wall time just read).
    static func stampBoot(_ db: Database, table: String, rowid: Int64, wallMs: Int64) throws {
        let bootMs = wallMs - BootClock.offsetMs
        guard bootMs >= 0 else { return }  // before this boot: not this boot's to date again
        try stamp(db, table: table, rowid: rowid, bootMs: bootMs)
    }

    /// How far before the boot clock's now a recording that starts may be dated (its pre-roll, a queued write) and
    /// still be taken as dated by the clock as it is: further, or more than 2 s ahead, its time was read before the
    /// clock jumped.
    static let startingRecordingAgeLimitMs: Int64 = 600_000

    /// `stampBoot` for a recording that starts now, dated `wallMs`. Returns false when `wallMs` was read before a
    /// jump of the wall clock that came before this write (the clock watch's re-dating may have run already and
    /// missed the row): it is then stamped with the boot clock now, and the caller dates it again (`redate`).
    /// Before, such a row kept its date from before the jump and no boot stamp, and retention deleted a loop
    /// segment two days "old" that had just been recorded (LabClockTests, 1 run in 3 under CI's load).
    static func stampStartingRecording(_ db: Database, rowid: Int64, wallMs: Int64) throws -> Bool {
        let now = BootClock.nowMs
        let bootMs = wallMs - BootClock.offsetMs
        let readBeforeAJump = bootMs > now + 2_000 || bootMs < now - startingRecordingAgeLimitMs
        try stamp(db, table: "recordings", rowid: rowid, bootMs: readBeforeAJump ? now : bootMs)
        return !readBeforeAJump
    }

    private static func stamp(_ db: Database, table: String, rowid: Int64, bootMs: Int64) throws {
        try db.execute(
            sql: "UPDATE \(table) SET boot_id = ?, boot_ms = ? WHERE rowid = ?",
            arguments: [BootClock.bootID, bootMs, rowid])
    }

    /// Dates the rows of boot `bootID` again by the wall clock whose offset from the boot clock is `offsetMs`.
    @discardableResult
    package func redate(bootID: String = BootClock.bootID, offsetMs: Int64 = BootClock.offsetMs) async throws -> Redated
    {
        let moved = try await database.write { db -> Redated in
            let off = "(boot_ms + \(offsetMs) - created_at)"
            try db.execute(
                sql: """
                    UPDATE recordings SET created_at = created_at + \(off), started_at = started_at + \(off),
                      ended_at = ended_at + \(off),
                      redated_ms = redated_ms + \(off)
                    WHERE boot_id = ? AND boot_ms IS NOT NULL AND abs(\(off)) > 2000
                    """, arguments: [bootID])
            var moved = Redated(recordings: db.changesCount)
            let activityOff = "(boot_ms + \(offsetMs) - started_at)"
            try db.execute(
                sql: """
                    UPDATE activity SET started_at = started_at + \(activityOff), ended_at = ended_at + \(activityOff)
                    WHERE boot_id = ? AND boot_ms IS NOT NULL AND abs(\(activityOff)) > 2000
                    """, arguments: [bootID])
            moved.activities = db.changesCount
            return moved
        }
        if moved.recordings > 0 { try await reloadIndexes() }
        return moved
    }

    /// A jump seen as it happened moves what was timed by the clock before it: backup retries not yet due (a jump
    /// back would hold them for as long as the jump) and share links (a jump forward would end them early).
    package func followJump(byMs delta: Int64) async throws {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE backup_jobs SET next_attempt_at = next_attempt_at + ? WHERE state = 'pending'",
                arguments: [delta])
            try db.execute(
                sql: "UPDATE shares SET created_at = created_at + ?, expires_at = expires_at + ?",
                arguments: [delta, delta])
        }
    }
}
