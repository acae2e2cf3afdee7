import ApplianceProtocol
import Foundation
import GRDB
import Mp4

/// The recordings of a time range as the timeline needs them: times, group, camera and lock only (a day of loop
/// recording is 8,640 rows; decoding whole recording objects would cost several times more).
extension Library {
    /// `channel`: only that channel's files (`firstChannel`'s include those from before channels, which have none).
    package func timelineFiles(
        from: Date, to: Date, longest: TimeInterval, now: Date = Date(), channel: String? = nil,
        firstChannel: String? = nil
    ) async throws -> [TimelineFile] {
        try await database.read { db in
            let (earliest, latest) = (
                Recording.milliseconds(from.addingTimeInterval(-longest)), Recording.milliseconds(to)
            )
            let ofChannel: SQL = channel.map { "AND " + Self.ofChannel($0, first: firstChannel) } ?? ""
            let request: SQLRequest<Row> = """
                SELECT id, created_at, started_at, ended_at, duration_ms, state, locked, group_id, camera, channel
                FROM recordings
                WHERE created_at BETWEEN \(earliest) AND \(latest)
                  AND (ended_at >= \(Recording.milliseconds(from))
                       OR (ended_at IS NULL AND state = \(Recording.State.recording)))
                  AND state <> \(Recording.State.failed) \(ofChannel)
                ORDER BY created_at, rowid
                """
            return try request.fetchCursor(db).map { row in
                var file = TimelineFile(row: row, now: now)
                file.channel = file.channel ?? firstChannel  // rows from before channels: the first channel's
                return file
            }.reduce(into: []) { $0.append($1) }
        }
    }
}

/// One recording on the timeline: from its first frame (`Recording.mediaStart`: a clip's pre-roll comes before
/// its creation) for its duration; the file being written ends now.
package struct TimelineFile: Sendable, Equatable {
    package var id: String
    package var start: Date
    package var end: Date
    package var group: String?
    package var camera: String?
    package var locked: Bool
    package var live: Bool
    /// The channel that recorded it (nil: a row from before channels, or none asked for).
    package var channel: String?

    package init(
        id: String, start: Date, end: Date, group: String? = nil, camera: String? = nil, locked: Bool = false,
        live: Bool = false, channel: String? = nil
    ) {
        (self.id, self.start, self.end, self.group, self.camera, self.locked, self.live) = (
            id, start, end, group, camera, locked, live
        )
        self.channel = channel
    }

    package init(row: Row, now: Date) {
        let created = Recording.date(row["created_at"])
        let ended: Date? = (row["ended_at"] as Int64?).map(Recording.date)
        let duration: Double? = (row["duration_ms"] as Int64?).map { Double($0) / 1000 }
        let live = (row["state"] as String) == Recording.State.recording.rawValue
        // As `Recording.mediaStart`; a finished file lasts its duration (its end is written after the stop).
        let firstFrame: Date? = row.hasColumn("started_at") ? (row["started_at"] as Int64?).map(Recording.date) : nil
        let start =
            firstFrame ?? ended.flatMap { end in duration.map { min(created, end.addingTimeInterval(-$0)) } } ?? created
        let end = live ? max(now, created) : duration.map { start.addingTimeInterval($0) } ?? ended ?? created
        self.init(
            id: row["id"], start: start, end: end, group: row["group_id"], camera: row["camera"], locked: row["locked"],
            live: live, channel: row.hasColumn("channel") ? row["channel"] : nil)
    }
}

/// The finished files of a range, for the range video: id, path and first frame, in time order.
extension Library {
    /// `channel`: only that channel's files (one video holds one picture; `firstChannel`'s include rows from before
    /// channels).
    package func rangeSources(
        from: Date, to: Date, longest: TimeInterval, channel: String? = nil, firstChannel: String? = nil
    ) async throws -> [RangeVideoBuilder.Source] {
        try await database.read { db in
            let (earliest, latest) = (
                Recording.milliseconds(from.addingTimeInterval(-longest)), Recording.milliseconds(to)
            )
            let ofChannel: SQL = channel.map { "AND " + Self.ofChannel($0, first: firstChannel) } ?? ""
            let request: SQLRequest<Row> = """
                SELECT id, path, created_at, started_at, ended_at, duration_ms, state, locked, group_id, camera
                FROM recordings
                WHERE created_at BETWEEN \(earliest) AND \(latest) AND ended_at >= \(Recording.milliseconds(from))
                  AND state IN (\(Recording.State.complete), \(Recording.State.recovered)) \(ofChannel)
                ORDER BY created_at, rowid
                """
            return try request.fetchCursor(db).map { row in
                RangeVideoBuilder.Source(
                    id: row["id"], path: row["path"], start: TimelineFile(row: row, now: Date()).start)
            }.reduce(into: []) { $0.append($1) }
        }
    }
}

/// Per local day: recordings begun, their seconds and locks, and activity begun (the timeline's calendar). The day
/// boundaries come from the caller's calendar, so a day is the same day everywhere in the appliance.
extension Library {
    package func dayTotals(days: [(day: String, start: Date, end: Date)]) async throws -> [TimelineDay] {
        guard !days.isEmpty else { return [] }
        let ranges = days.enumerated().map {
            "(\($0.offset), \(Recording.milliseconds($0.element.start)), \(Recording.milliseconds($0.element.end)))"
        }
        .joined(separator: ", ")
        return try await database.read { db in
            var totals = days.map { TimelineDay(day: $0.day) }
            let recordings = try Row.fetchAll(
                db,
                sql: """
                    WITH days(i, s, e) AS (VALUES \(ranges))
                    SELECT days.i AS i, COUNT(*) AS n, COALESCE(SUM(r.duration_ms), 0) AS ms,
                      COALESCE(SUM(r.locked), 0) AS locked
                    FROM days JOIN recordings r
                      ON r.created_at >= days.s AND r.created_at < days.e AND r.state <> 'failed'
                    GROUP BY days.i
                    """)
            for row in recordings {
                let i: Int = row["i"]
                (totals[i].recordings, totals[i].recordedS, totals[i].locked) = (
                    row["n"], Double(row["ms"] as Int64) / 1000, row["locked"]
                )
            }
            let activity = try Row.fetchAll(
                db,
                sql: """
                    WITH days(i, s, e) AS (VALUES \(ranges))
                    SELECT days.i AS i, COUNT(a.id) AS n
                    FROM days JOIN activity a ON a.started_at >= days.s AND a.started_at < days.e
                    GROUP BY days.i
                    """)
            for row in activity { totals[row["i"] as Int].events = row["n"] }
            return totals.filter { $0.recordings > 0 || $0.events > 0 }
        }
    }
}

/// The file that was being recorded at a moment, for its scrubbing preview: the latest to begin at or before it
/// that had not ended (the one being recorded now counts). A file begins before its creation by its pre-roll (at
/// most a minute): files created up to a minute later are candidates, those whose first frame is later are not.
extension Library {
    /// `channel`: only that channel's files (`firstChannel`'s include rows from before channels).
    package func recordingAt(
        _ moment: Date, longest: TimeInterval, channel: String? = nil, firstChannel: String? = nil
    ) async throws -> (id: String, start: Date)? {
        try await database.read { db in
            let ofChannel: SQL = channel.map { "AND " + Self.ofChannel($0, first: firstChannel) } ?? ""
            let request: SQLRequest<Row> = """
                SELECT id, created_at, started_at, ended_at, duration_ms, state, locked, group_id, camera, channel
                FROM recordings
                WHERE created_at BETWEEN \(Recording.milliseconds(moment.addingTimeInterval(-longest)))
                                     AND \(Recording.milliseconds(moment.addingTimeInterval(60)))
                  AND COALESCE(started_at, MIN(created_at, COALESCE(ended_at - duration_ms, created_at)))
                      <= \(Recording.milliseconds(moment))
                  AND (ended_at >= \(Recording.milliseconds(moment))
                       OR (ended_at IS NULL AND state = \(Recording.State.recording)))
                  AND state <> \(Recording.State.failed) \(ofChannel)
                ORDER BY created_at DESC, rowid DESC LIMIT 4
                """
            let files = try request.fetchAll(db).map { TimelineFile(row: $0, now: Date()) }
            return files.first { $0.start <= moment && moment <= $0.end }.map { ($0.id, $0.start) }
        }
    }
}
