import ApplianceProtocol
import GRDB

/// Versioned schema. Never edit a migration that has shipped: add a new one.
enum LibraryMigrations {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        registerRecordings(&migrator)
        registerLater(&migrator)
        registerActivity(&migrator)
        registerDayTotals(&migrator)
        registerBootClock(&migrator)
        registerAccounts(&migrator)
        registerObjects(&migrator)
        registerUploadResume(&migrator)
        registerHashedShares(&migrator)
        registerChannels(&migrator)
        return migrator
    }

    private static func registerRecordings(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v1: recordings") { db in
            try db.create(table: "recordings") { t in
                // Dates: integer milliseconds since 1970 (see Recording.databaseDateEncodingStrategy).
                t.column("id", .text).primaryKey()
                t.column("title", .text).notNull()
                t.column("created_at", .integer).notNull()
                t.column("started_at", .integer)
                t.column("ended_at", .integer)
                t.column("duration_ms", .integer)
                t.column("size_bytes", .integer)
                t.column("width", .integer)
                t.column("height", .integer)
                t.column("framerate", .integer)
                t.column("video_codec", .text)
                t.column("audio_codec", .text)
                t.column("audio_present", .boolean).notNull().defaults(to: false)
                t.column("camera", .text)
                t.column("path", .text).notNull()
                t.column("thumbnail", .text)
                t.column("state", .text).notNull()
                    .check(sql: "state IN ('recording', 'complete', 'recovered', 'failed')")
                t.column("failure_reason", .text)
                t.column("locked", .boolean).notNull().defaults(to: false)
                t.column("note", .text)
                t.column("backup_state", .text).notNull().defaults(to: "none")
                t.column("backup_remote_path", .text)
                t.column("backup_error", .text)
                t.column("backup_attempts", .integer).notNull().defaults(to: 0)
                t.column("backed_up_at", .integer)
            }
            // Newest-first listing walks this index (rowid breaks ties).
            try db.create(index: "recordings_by_created_at", on: "recordings", columns: ["created_at"])
            try db.create(index: "recordings_by_state", on: "recordings", columns: ["state"])
        }
    }

    private static func registerLater(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2: backup jobs") { db in
            try db.create(table: "backup_jobs") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("recording_id", .text).notNull()
                t.column("kind", .text).notNull().check(sql: "kind IN ('upload', 'delete')")
                t.column("state", .text).notNull().check(sql: "state IN ('pending', 'running', 'done', 'failed')")
                t.column("attempts", .integer).notNull().defaults(to: 0)
                t.column("next_attempt_at", .integer).notNull()  // ms since 1970
                t.column("last_error", .text)
                t.column("remote_path", .text)  // for deletes: what to remove
                t.column("created_at", .integer).notNull()
                t.column("updated_at", .integer).notNull()
            }
            try db.create(index: "backup_jobs_due", on: "backup_jobs", columns: ["state", "next_attempt_at"])
            try db.create(index: "backup_jobs_by_recording", on: "backup_jobs", columns: ["recording_id"])
        }
        migrator.registerMigration("v3: loop recording and protection") { db in
            try db.alter(table: "recordings") { t in
                t.add(column: "group_id", .text)
                t.add(column: "segment_index", .integer)
                t.add(column: "lock_reason", .text)
            }
            try db.create(
                index: "recordings_by_group", on: "recordings", columns: ["group_id", "segment_index"],
                condition: Column("group_id") != nil)
        }
        migrator.registerMigration("v4: retention's covering index") { db in
            // Retention sums sizes by state and lock on every pass: over this index SQLite reads a few MB instead
            // of every row of the table (340 ms → a few tens of ms at 100,000 rows).
            try db.create(
                index: "recordings_usage", on: "recordings", columns: ["state", "locked", "size_bytes", "created_at"])
        }
        migrator.registerMigration("v5: daemon runs") { db in
            // One row: how often a daemon started on this folder, and how many runs ended without a clean stop
            // (a crash, SIGKILL, a watchdog abort, power loss): the restarts metric and the restart backoff.
            try db.create(table: "daemon_runs") { t in
                t.column("id", .integer).primaryKey().check(sql: "id = 1")
                t.column("starts", .integer).notNull()
                t.column("unclean_exits", .integer).notNull()
                t.column("consecutive_unclean", .integer).notNull()
                t.column("running", .boolean).notNull()
                t.column("started_at", .integer).notNull()  // ms since 1970
            }
        }
        migrator.registerMigration("v6: share links") { db in
            // A share link names one clip; deleting the clip (by hand or by retention) deletes its links.
            try db.create(table: "shares") { t in
                t.column("token", .text).primaryKey()
                t.column("recording_id", .text).notNull().references("recordings", column: "id", onDelete: .cascade)
                t.column("created_at", .integer).notNull()  // ms since 1970
                t.column("expires_at", .integer).notNull()
            }
            try db.create(index: "shares_by_recording", on: "shares", columns: ["recording_id"])
        }
    }

    private static func registerActivity(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7: activity") { db in
            // What happened (motion, sound, a press, a mark from outside), by time; the recordings that cover an
            // activity are found by time too, and carry `has_event` so retention can keep them longer.
            try db.create(table: "activity") { t in
                t.autoIncrementedPrimaryKey("id")
                t.column("kind", .text).notNull().check(sql: "kind IN ('motion', 'sound', 'manual', 'external')")
                t.column("label", .text)
                t.column("camera", .text)
                t.column("started_at", .integer).notNull()  // ms since 1970
                t.column("ended_at", .integer)
                t.column("zones", .text).notNull().defaults(to: "")  // comma-separated, in the configured order
                t.column("peak", .double)
                t.column("thumbnail", .text)
            }
            try db.create(index: "activity_by_start", on: "activity", columns: ["started_at"])
            try db.create(index: "activity_by_kind", on: "activity", columns: ["kind", "started_at"])
            try db.alter(table: "recordings") { t in
                t.add(column: "has_event", .boolean).notNull().defaults(to: false)
            }
        }
    }

    private static func registerDayTotals(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v8: day totals") { db in
            // The timeline's calendar sums a month of recordings by day (260,000 rows in loop mode): from this index
            // alone it reads 80 ms, from the rows 250 ms (measured).
            try db.create(
                index: "recordings_by_day", on: "recordings", columns: ["created_at", "state", "duration_ms", "locked"])
        }
    }

    private static func registerBootClock(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v9: boot clock") { db in
            // Rows written live carry the boot they were written in and the boot clock's milliseconds at their
            // start: the wall clock of a board without a clock battery jumps at its first sync, and the rows of
            // that boot are dated again by it (`Library.redate`). `redated_ms`: how far a row was moved in all.
            for table in ["recordings", "activity"] {
                try db.alter(table: table) { t in
                    t.add(column: "boot_id", .text)
                    t.add(column: "boot_ms", .integer)
                }
            }
            try db.alter(table: "recordings") { t in
                t.add(column: "redated_ms", .integer).notNull().defaults(to: 0)
            }
            try db.create(
                index: "recordings_by_boot", on: "recordings", columns: ["boot_id"], condition: Column("boot_id") != nil
            )
            try db.create(
                index: "activity_by_boot", on: "activity", columns: ["boot_id"], condition: Column("boot_id") != nil)
        }
    }

    private static func registerAccounts(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v10: accounts") { db in
            // No secret is stored: a bcrypt hash of the password, the Digest hash RTSP needs (MD5 of
            // name:realm:password, what every Digest server keeps), and the SHA-256 of each API token.
            try db.create(table: "users") { t in
                t.column("name", .text).primaryKey()
                t.column("role", .text).notNull().check(sql: "role IN ('admin', 'viewer')")
                t.column("password_hash", .text).notNull()
                t.column("digest_ha1", .text).notNull()
                t.column("created_at", .integer).notNull()  // ms since 1970
                t.column("last_login", .integer)
                // Raised by every password change: sessions made before it end.
                t.column("generation", .integer).notNull().defaults(to: 0)
            }
            try db.create(table: "user_tokens") { t in
                t.column("token_hash", .text).primaryKey()
                t.column("name", .text).notNull().references("users", column: "name", onDelete: .cascade)
                t.column("created_at", .integer).notNull()
                t.column("last_used", .integer)
            }
            try db.create(index: "user_tokens_by_name", on: "user_tokens", columns: ["name"])
        }
    }

    private static func registerObjects(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v11: objects") { db in
            // Activity of kind 'object' (its label in `label`, its best detection's box in `box`): SQLite cannot
            // change a CHECK, so the table is made again with every row and index kept.
            try db.execute(
                sql: """
                    CREATE TABLE activity_v11 (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        kind TEXT NOT NULL CHECK (kind IN ('motion', 'sound', 'manual', 'external', 'object')),
                        label TEXT, camera TEXT, started_at INTEGER NOT NULL, ended_at INTEGER,
                        zones TEXT NOT NULL DEFAULT '', peak DOUBLE, thumbnail TEXT, boot_id TEXT, boot_ms INTEGER,
                        box TEXT);
                    INSERT INTO activity_v11
                      (id, kind, label, camera, started_at, ended_at, zones, peak, thumbnail, boot_id, boot_ms)
                    SELECT id, kind, label, camera, started_at, ended_at, zones, peak, thumbnail, boot_id, boot_ms
                    FROM activity;
                    DROP TABLE activity;
                    ALTER TABLE activity_v11 RENAME TO activity;
                    """)
            try db.create(index: "activity_by_start", on: "activity", columns: ["started_at"])
            try db.create(index: "activity_by_kind", on: "activity", columns: ["kind", "started_at"])
            try db.create(
                index: "activity_by_boot", on: "activity", columns: ["boot_id"], condition: Column("boot_id") != nil)
            try db.create(index: "activity_by_label", on: "activity", columns: ["label", "started_at"])
        }
    }

    private static func registerUploadResume(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v12: upload resume") { db in
            // An object store's multipart upload in progress (its id and the parts the server has), so that a
            // restart goes on from there: JSON the target writes and reads, NULL for none.
            try db.execute(sql: "ALTER TABLE backup_jobs ADD COLUMN resume TEXT")
        }
    }

    private static func registerChannels(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v14: channels") { db in
            // The channel (`[[channel]]`) that recorded a clip or noticed an activity; NULL for rows from before
            // channels, which are the first channel's.
            try db.execute(sql: "ALTER TABLE recordings ADD COLUMN channel TEXT")
            try db.execute(sql: "ALTER TABLE activity ADD COLUMN channel TEXT")
            // Retention finds each channel's newest clip (its last hour is deleted last) and the lists filter by it.
            try db.create(index: "recordings_by_channel", on: "recordings", columns: ["channel", "created_at"])
        }
    }

    private static func registerHashedShares(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v13: share tokens hashed") { db in
            // Only the token's SHA-256 is kept: links already handed out keep working (their hash is looked up),
            // and a copy of the database opens no clip.
            try db.create(table: "shares_v13") { t in
                t.column("token_hash", .text).primaryKey()
                t.column("recording_id", .text).notNull().references("recordings", column: "id", onDelete: .cascade)
                t.column("created_at", .integer).notNull()  // ms since 1970
                t.column("expires_at", .integer).notNull()
            }
            for row in try Row.fetchAll(db, sql: "SELECT token, recording_id, created_at, expires_at FROM shares") {
                try db.execute(
                    sql:
                        "INSERT INTO shares_v13 (token_hash, recording_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                    arguments: [Library.shareHash(token: row[0]), row[1] as String, row[2] as Int64, row[3] as Int64])
            }
            // The clear tokens are zeroed where they lay, not only unlinked (secure_delete), so the file's free pages
            // do not keep them.
            try db.execute(sql: "PRAGMA secure_delete = ON")
            try db.execute(sql: "DELETE FROM shares")
            try db.execute(sql: "DROP TABLE shares")
            try db.execute(sql: "PRAGMA secure_delete = OFF")
            try db.execute(sql: "ALTER TABLE shares_v13 RENAME TO shares")
            try db.create(index: "shares_by_recording", on: "shares", columns: ["recording_id"])
        }
    }
}
