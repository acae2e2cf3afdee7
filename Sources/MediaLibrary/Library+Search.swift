import ApplianceProtocol
import Foundation
import GRDB

extension Library {
    /// Newest first, the clips whose title contains `filter.search` (case-insensitive for ASCII), that started
    /// in [`from`, `to`) and that `filter.channel` recorded (`firstChannel`'s include the clips from before channels,
    /// which have none). An OFFSET query: filtered results are small, and the plain list keeps its keyset pages.
    package func filteredPage(_ filter: ListFilter, firstChannel: String? = nil, page: Int, perPage: Int) async throws
        -> Page
    {
        var conditions: [String] = []
        var arguments: [(any DatabaseValueConvertible)?] = []
        if let search = filter.search, !search.isEmpty {
            let escaped = search.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
                .replacingOccurrences(of: "_", with: "\\_")
            conditions.append("title LIKE ? ESCAPE '\\'")
            arguments.append("%" + escaped + "%")
        }
        if let from = filter.from {
            conditions.append("created_at >= ?")
            arguments.append(Recording.milliseconds(from))
        }
        if let to = filter.to {
            conditions.append("created_at < ?")
            arguments.append(Recording.milliseconds(to))
        }
        if let channel = filter.channel, !channel.isEmpty {
            conditions.append(channel == firstChannel ? "(channel = ? OR channel IS NULL)" : "channel = ?")
            arguments.append(channel)
        }
        let clause = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
        let values = StatementArguments(arguments)
        let paging: StatementArguments = [perPage, Self.rowsBefore(page: page, perPage: perPage) ?? Int(Int64.max)]
        return try await database.read { db in
            let total = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM recordings \(clause)", arguments: values) ?? 0
            let items = try Recording.fetchAll(
                db,
                sql: """
                    SELECT * FROM recordings \(clause) ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?
                    """, arguments: values + paging)
            return Page(items: items, total: total, page: page, perPage: perPage)
        }
    }
}
