import ApplianceProtocol
import Foundation
import GRDB

/// Activity rows (table `activity`) and the `has_event` mark on the recordings that cover one.
extension Library {
    /// Stores a new activity and returns it with its number.
    public func insertActivity(_ activity: Activity) async throws -> Activity {
        try await database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO activity
                      (kind, label, camera, channel, started_at, ended_at, zones, peak, thumbnail, box)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    activity.kind.rawValue, activity.label, activity.camera, activity.channel,
                    Recording.milliseconds(activity.startedAt),
                    activity.endedAt.map(Recording.milliseconds), activity.zones.joined(separator: ","), activity.peak,
                    activity.thumbnail, activity.box.map(Self.boxText),
                ])
            var stored = Self.asStored(activity)
            stored.id = db.lastInsertedRowID
            try Self.stampBoot(
                db, table: "activity", rowid: stored.id, wallMs: Recording.milliseconds(activity.startedAt))
            return stored
        }
    }

    /// Writes an activity's end, zones, peak and picture; returns it as stored.
    package func updateActivity(_ activity: Activity) async throws -> Activity {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE activity SET ended_at = ?, zones = ?, peak = ?, thumbnail = ?, box = ? WHERE id = ?",
                arguments: [
                    activity.endedAt.map(Recording.milliseconds), activity.zones.joined(separator: ","),
                    activity.peak, activity.thumbnail, activity.box.map(Self.boxText), activity.id,
                ])
        }
        return Self.asStored(activity)
    }

    /// Times as the table keeps them (whole milliseconds), so what is announced equals what is read back later.
    private static func asStored(_ activity: Activity) -> Activity {
        var stored = activity
        stored.startedAt = Recording.date(Recording.milliseconds(activity.startedAt))
        stored.endedAt = activity.endedAt.map { Recording.date(Recording.milliseconds($0)) }
        return stored
    }

    package func activity(id: Int64) async throws -> Activity? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM activity WHERE id = ?", arguments: [id]).map(Self.activity)
        }
    }

    /// Newest first: those of `filter.kinds` that meet [from, to), at most `limit`, and how many match in all, each
    /// with the clip that holds its start (`clip`). `longest`: no file lasts longer, pre-roll included (it bounds
    /// the search for that clip).
    /// `firstChannel`: the first channel's name, whose activity includes that from before channels (none).
    package func activity(_ filter: ActivityFilter, longest: TimeInterval = 86_400, firstChannel: String? = nil)
        async throws -> ActivityList
    {
        let reach = Int64(longest * 1000)
        return try await database.read { db in
            var conditions: [SQL] = []
            if let channel = filter.channel { conditions.append(Self.ofChannel(channel, first: firstChannel)) }
            if !filter.kinds.isEmpty { conditions.append("kind IN \(filter.kinds.map(\.rawValue))") }
            if let label = filter.label { conditions.append("label = \(label)") }
            if let to = filter.to { conditions.append("started_at < \(Recording.milliseconds(to))") }
            if let from = filter.from {
                conditions.append("COALESCE(ended_at, started_at) >= \(Recording.milliseconds(from))")
            }
            var whereClause: SQL = ""
            for (index, condition) in conditions.enumerated() {
                whereClause += (index == 0 ? "WHERE " : " AND ") + condition
            }
            let rows = try SQLRequest<Row>(
                literal: """
                    SELECT *, \(Self.clipHoldingTheStart(reach: reach)) AS clip FROM activity \(whereClause)
                    ORDER BY started_at DESC, id DESC LIMIT \(filter.limit)
                    """
            ).fetchAll(db)
            let total = try SQLRequest<Int>(literal: "SELECT COUNT(*) FROM activity \(whereClause)").fetchOne(db) ?? 0
            return ActivityList(
                items: rows.map { row in
                    var activity = Self.activity(row)
                    activity.clip = row["clip"]
                    return activity
                }, total: total)
        }
    }

    /// The recording whose file holds an activity's start (the latest to begin, if two do). A file begins at its
    /// row's `started_at`, its first frame's time (pre-roll reaches back before the row's `created_at`; rows from
    /// before that was written hold `created_at` there), or at its end less its media's duration if that is earlier;
    /// a finished one spans to its end, one being recorded onwards. Rows created more than `reach` ms around the
    /// start are not looked at.
    private static func clipHoldingTheStart(reach: Int64) -> SQL {
        """
        (SELECT r.id FROM recordings r
          WHERE r.created_at BETWEEN activity.started_at - \(reach) AND activity.started_at + \(reach)
            AND r.state <> \(Recording.State.failed)
            AND r.channel IS activity.channel
            AND ((r.ended_at IS NOT NULL
                  AND MIN(COALESCE(r.started_at, r.created_at), r.ended_at - COALESCE(r.duration_ms, 0))
                      <= activity.started_at
                  AND r.ended_at >= activity.started_at)
              OR (r.ended_at IS NULL AND r.state = \(Recording.State.recording)
                  AND COALESCE(r.started_at, r.created_at) <= activity.started_at))
          ORDER BY r.created_at DESC LIMIT 1)
        """
    }

    /// Activities a stopped daemon left open: closed at their start (when they really ended is not known).
    package func closeOpenActivity() async throws -> [Activity] {
        try await database.write { db in
            let open = try Row.fetchAll(db, sql: "SELECT * FROM activity WHERE ended_at IS NULL").map(Self.activity)
            try db.execute(sql: "UPDATE activity SET ended_at = started_at WHERE ended_at IS NULL")
            return open.map { activity in
                var closed = activity
                closed.endedAt = activity.startedAt
                return closed
            }
        }
    }

    /// How much what a recording covers weighs when retention needs room (`has_event`): nothing, an activity, or a
    /// tracked object (a person at the door outweighs a branch in the wind). Room is made from the lightest first.
    package enum EventWeight: Int, Sendable, CaseIterable {
        case none = 0, activity = 1, object = 2
    }

    /// Marks the recordings that meet [from, to] (the one being written included) as covering an activity of
    /// `weight` (a heavier mark is never lowered). `longest`: no clip runs longer (bounds the index walk). Returns how
    /// many rows were marked.
    @discardableResult
    package func markCovering(from: Date, to: Date, longest: TimeInterval, weight: EventWeight = .activity) async throws
        -> Int
    {
        try await database.write { db in
            let (earliest, latest) = (
                Recording.milliseconds(from.addingTimeInterval(-longest)), Recording.milliseconds(to)
            )
            try db.execute(
                literal: """
                    UPDATE recordings SET has_event = \(weight.rawValue)
                    WHERE created_at BETWEEN \(earliest) AND \(latest) AND has_event < \(weight.rawValue)
                      AND (ended_at >= \(Recording.milliseconds(from)) OR (ended_at IS NULL AND state =
                    \(Recording.State.recording)))
                    """)
            return db.changesCount
        }
    }

    /// Deletes activity started before `cutoff` and, beyond the newest `keep`, the oldest; returns the pictures
    /// to delete.
    package func deleteActivity(startedBefore cutoff: Date?, keep: Int) async throws -> [String] {
        try await database.write { db in
            var doomed = "started_at < \(cutoff.map(Recording.milliseconds) ?? Int64.min)"
            doomed += " OR id IN (SELECT id FROM activity ORDER BY started_at DESC, id DESC LIMIT -1 OFFSET \(keep))"
            let pictures = try String.fetchAll(
                db, sql: "SELECT thumbnail FROM activity WHERE (\(doomed)) AND thumbnail IS NOT NULL")
            try db.execute(sql: "DELETE FROM activity WHERE \(doomed)")
            return pictures
        }
    }

    private static func activity(_ row: Row) -> Activity {
        let zones: String = row["zones"]
        var activity = Activity(
            id: row["id"], kind: Activity.Kind(rawValue: row["kind"]) ?? .external, label: row["label"],
            camera: row["camera"], startedAt: Recording.date(row["started_at"]),
            endedAt: (row["ended_at"] as Int64?).map(Recording.date),
            zones: zones.isEmpty ? [] : zones.split(separator: ",").map(String.init), peak: row["peak"],
            thumbnail: row["thumbnail"], box: (row["box"] as String?).flatMap(Self.box))
        activity.channel = row["channel"]
        return activity
    }

    /// A box as the table keeps it: "x,y,width,height" in fractions of the picture.
    private static func boxText(_ box: ObjectBox) -> String {
        [box.x, box.y, box.width, box.height].map { String(format: "%.4f", $0) }.joined(separator: ",")
    }

    private static func box(_ text: String) -> ObjectBox? {
        let v = text.split(separator: ",").compactMap { Double($0) }
        return v.count == 4 ? ObjectBox(x: v[0], y: v[1], width: v[2], height: v[3]) : nil
    }
}
