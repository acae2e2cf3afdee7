import ApplianceProtocol
import Foundation
import GRDB

/// Loop recordings as groups: a drive as one list entry, its segments, and the clips an export joins.
extension Library {
    /// Finished clips to export: a group's segments in order, or the clips meeting [from, to] (of one camera).
    func exportSources(_ request: ExportRequest, longest: TimeInterval) async throws -> [Recording] {
        try await pool.read { db in
            if let group = request.group {
                return try Recording.fetchAll(db, sql: """
                    SELECT * FROM recordings WHERE (group_id = ? OR id = ?) AND state IN ('complete', 'recovered')
                    ORDER BY created_at, rowid
                    """, arguments: [group, group])
            }
            let from = request.from ?? .distantPast, to = request.to ?? .distantFuture
            return try Recording.fetchAll(db, sql: """
                SELECT * FROM recordings
                WHERE created_at BETWEEN ? AND ? AND ended_at > ? AND state IN ('complete', 'recovered')
                ORDER BY created_at, rowid
                """, arguments: [Recording.milliseconds(from.addingTimeInterval(-longest)), Recording.milliseconds(to),
                                 Recording.milliseconds(from)])
            .filter { row in request.camera.map { camera in (row.camera ?? "").split(separator: ",").contains { $0 == camera } } ?? true }
        }
    }
}

extension Library {
    /// Newest first, a loop recording as one entry: its first kept segment carrying `segments` and the summed
    /// duration and size. A GROUP BY over the table: costs more than `page` as the table grows.
    func groupedPage(_ page: Int, perPage: Int) async throws -> Page {
        try await pool.read { db in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(DISTINCT COALESCE(group_id, id)) FROM recordings") ?? 0
            let rows = try Row.fetchAll(db, sql: """
                WITH g AS (
                    SELECT MIN(rowid) AS first, MIN(created_at) AS started, COUNT(*) AS n, SUM(duration_ms) AS d,
                           SUM(size_bytes) AS b, MAX(ended_at) AS e
                    FROM recordings GROUP BY COALESCE(group_id, id))
                SELECT r.*, g.n AS g_n, g.d AS g_d, g.b AS g_b, g.e AS g_e FROM g JOIN recordings r ON r.rowid = g.first
                ORDER BY g.started DESC, g.first DESC LIMIT ? OFFSET ?
                """, arguments: [perPage, (page - 1) * perPage])
            let items = try rows.map { row -> Recording in
                var recording = try Recording(row: row)
                if recording.group != nil {
                    recording.segments = row["g_n"]
                    recording.durationMs = row["g_d"]
                    recording.sizeBytes = row["g_b"]
                    recording.endedAt = (row["g_e"] as Int64?).map(Recording.date)
                }
                return recording
            }
            return Page(items: items, total: total, page: page, perPage: perPage)
        }
    }

    /// One loop recording's segments, in order.
    func segmentPage(group: String, page: Int, perPage: Int) async throws -> Page {
        try await pool.read { db in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM recordings WHERE group_id = ?", arguments: [group]) ?? 0
            let items = try Recording.fetchAll(db, sql: """
                SELECT * FROM recordings WHERE group_id = ? ORDER BY segment_index LIMIT ? OFFSET ?
                """, arguments: [group, perPage, (page - 1) * perPage])
            return Page(items: items, total: total, page: page, perPage: perPage)
        }
    }
}
