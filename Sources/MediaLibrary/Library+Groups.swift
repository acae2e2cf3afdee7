import ApplianceProtocol
import Foundation
import GRDB

/// Loop recordings as groups: a drive as one list entry, its segments, and the clips an export joins.
extension Library {
    /// Finished clips to export: a group's segments in order, or the clips meeting [from, to] (of one camera), of
    /// `request.channel` when it names one (`firstChannel`'s include the clips from before channels, which have none).
    package func exportSources(_ request: ExportRequest, longest: TimeInterval, firstChannel: String? = nil)
        async throws -> [Recording]
    {
        let sources = try await unfilteredExportSources(request, longest: longest)
        guard let channel = request.channel else { return sources }
        return sources.filter { ($0.channel ?? firstChannel) == channel }
    }

    private func unfilteredExportSources(_ request: ExportRequest, longest: TimeInterval) async throws -> [Recording] {
        try await database.read { db in
            if let group = request.group {
                let segments: SQLRequest<Recording> = """
                    SELECT * FROM recordings
                    WHERE (group_id = \(group) OR id = \(group)) AND state IN \(Recording.State.finished)
                    ORDER BY created_at, rowid
                    """
                return try segments.fetchAll(db)
            }
            let from = request.from ?? .distantPast
            let to = request.to ?? .distantFuture
            let (earliest, latest) = (
                Recording.milliseconds(from.addingTimeInterval(-longest)), Recording.milliseconds(to)
            )
            let meeting: SQLRequest<Recording> = """
                SELECT * FROM recordings
                WHERE created_at BETWEEN \(earliest) AND \(latest) AND ended_at > \(Recording.milliseconds(from))
                  AND state IN \(Recording.State.finished)
                ORDER BY created_at, rowid
                """
            return try meeting.fetchAll(db).filter { row in
                request.camera.map { camera in (row.camera ?? "").split(separator: ",").contains { $0 == camera } }
                    ?? true
            }
        }
    }
}

extension Library {
    /// Newest first, a loop recording as one entry: its first kept segment carrying `segments` and the summed
    /// duration and size. The entries come from `EntryIndex` (an array slice); the rows and the groups' sums are
    /// two indexed queries, so every page costs the same at any depth.
    package func groupedPage(_ page: Int, perPage: Int) async throws -> Page {
        let offset = Self.rowsBefore(page: page, perPage: perPage)
        let (keys, total) = entries.withLock { index in
            (offset.map { index.keys(offset: $0, limit: perPage) } ?? [], index.count)
        }
        guard !keys.isEmpty else { return Page(items: [], total: total, page: page, perPage: perPage) }
        return try await database.read { db in
            let rowids = keys.map(\.rowid)
            let marks = Array(repeating: "?", count: rowids.count).joined(separator: ",")
            var byRowid: [Int64: Recording] = [:]
            for row in try Row.fetchAll(
                db, sql: "SELECT rowid AS row_key, * FROM recordings WHERE rowid IN (\(marks))",
                arguments: StatementArguments(rowids))
            {
                byRowid[row["row_key"]] = try Recording(row: row)
            }
            let groups = Set(byRowid.values.compactMap(\.group))
            var sums: [String: Row] = [:]
            if !groups.isEmpty {
                let groupMarks = Array(repeating: "?", count: groups.count).joined(separator: ",")
                for row in try Row.fetchAll(
                    db,
                    sql: """
                        SELECT group_id, COUNT(*) AS n, SUM(duration_ms) AS d, SUM(size_bytes) AS b, MAX(ended_at) AS e
                        FROM recordings WHERE group_id IN (\(groupMarks)) GROUP BY group_id
                        """, arguments: StatementArguments(Array(groups)))
                {
                    sums[row["group_id"]] = row
                }
            }
            let items = keys.compactMap { key -> Recording? in
                guard var recording = byRowid[key.rowid] else { return nil }
                if let group = recording.group, let sum = sums[group] {
                    recording.segments = sum["n"]
                    recording.durationMs = sum["d"]
                    recording.sizeBytes = sum["b"]
                    recording.endedAt = (sum["e"] as Int64?).map(Recording.date)
                }
                return recording
            }
            return Page(items: items, total: total, page: page, perPage: perPage)
        }
    }

    /// One loop recording's segments, in order.
    package func segmentPage(group: String, page: Int, perPage: Int) async throws -> Page {
        let offset = Self.rowsBefore(page: page, perPage: perPage) ?? Int(Int64.max)
        return try await database.read { db in
            let total =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM recordings WHERE group_id = ?", arguments: [group]) ?? 0
            let items = try Recording.fetchAll(
                db,
                sql: """
                    SELECT * FROM recordings WHERE group_id = ? ORDER BY segment_index LIMIT ? OFFSET ?
                    """, arguments: [group, perPage, offset])
            return Page(items: items, total: total, page: page, perPage: perPage)
        }
    }
}
