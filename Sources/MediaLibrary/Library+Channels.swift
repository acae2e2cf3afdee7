import ApplianceProtocol
import Foundation
import GRDB

extension Library {
    /// Rows of `channel`: the first channel's (`first`) include those from before channels, which have none.
    static func ofChannel(_ channel: String, first: String?) -> SQL {
        channel == first ? "(channel = \(channel) OR channel IS NULL)" : "channel = \(channel)"
    }

    /// What one channel keeps: its finished clips, their bytes, and when the oldest was made.
    package struct ChannelUsage: Sendable, Equatable {
        package var clips: Int
        package var bytes: Int64
        package var oldest: Date?
    }

    /// What each channel keeps, by name; rows from before channels count as the first channel's (`first`). One
    /// aggregate over the finished rows (read only where there are several channels: `status`).
    package func channelUsage(first: String) async throws -> [String: ChannelUsage] {
        try await database.read { db in
            let rows: SQLRequest<Row> = """
                SELECT COALESCE(channel, \(first)), COUNT(*), COALESCE(SUM(size_bytes), 0), MIN(created_at)
                FROM recordings WHERE state IN \(Recording.State.finished)
                GROUP BY 1
                """
            var usage: [String: ChannelUsage] = [:]
            for row in try rows.fetchAll(db) {
                let name: String = row[0]
                usage[name] = ChannelUsage(
                    clips: row[1], bytes: row[2], oldest: (row[3] as Int64?).map(Recording.date))
            }
            return usage
        }
    }
}
