import Foundation
import GRDB

/// How often a daemon has run on this data folder. A run marks itself running at start and clears the mark when it
/// stops cleanly; a mark still set at the next start means the last run ended without stopping (crash, SIGKILL,
/// watchdog abort, power loss). Only the daemon holding the folder lock calls these.
public struct DaemonRuns: Sendable, Equatable {
    /// Starts on this folder, this one included.
    public var starts: Int
    /// Runs that ended without a clean stop.
    public var uncleanExits: Int
    /// Unclean exits in a row just before this start (0 when the last run stopped cleanly).
    public var consecutiveUnclean: Int
    /// When the previous run started (nil on the first start).
    public var previousStart: Date?

    package init(starts: Int, uncleanExits: Int, consecutiveUnclean: Int, previousStart: Date? = nil) {
        self.starts = starts
        self.uncleanExits = uncleanExits
        self.consecutiveUnclean = consecutiveUnclean
        self.previousStart = previousStart
    }
}

extension Library {
    /// Counts this start; the previous run is unclean if its mark is still set.
    package func beginRun(at now: Date = Date()) async throws -> DaemonRuns {
        try await database.write { db in
            let row = try Row.fetchOne(
                db,
                sql:
                    """
                    SELECT starts, unclean_exits, consecutive_unclean, running, started_at FROM daemon_runs
                    WHERE id = 1
                    """
            )
            let previousUnclean = row.map { ($0[3] as Bool) } ?? false
            var runs = DaemonRuns(
                starts: (row?[0] ?? 0) + 1, uncleanExits: (row?[1] ?? 0) + (previousUnclean ? 1 : 0),
                consecutiveUnclean: previousUnclean ? (row?[2] ?? 0) + 1 : 0,
                previousStart: row.map { Date(timeIntervalSince1970: Double($0[4] as Int64) / 1000) })
            if runs.consecutiveUnclean < 0 { runs.consecutiveUnclean = 0 }
            try db.execute(
                sql: """
                    INSERT INTO daemon_runs (id, starts, unclean_exits, consecutive_unclean, running, started_at)
                    VALUES (1, ?, ?, ?, 1, ?)
                    ON CONFLICT(id) DO UPDATE SET starts = excluded.starts, unclean_exits = excluded.unclean_exits,
                      consecutive_unclean = excluded.consecutive_unclean, running = 1, started_at = excluded.started_at
                    """,
                arguments: [
                    runs.starts, runs.uncleanExits, runs.consecutiveUnclean, Int64(now.timeIntervalSince1970 * 1000),
                ])
            return runs
        }
    }

    /// Clears the running mark: this run stopped cleanly.
    package func endRun() async throws {
        try await database.write { db in
            try db.execute(sql: "UPDATE daemon_runs SET running = 0, consecutive_unclean = 0 WHERE id = 1")
        }
    }
}
