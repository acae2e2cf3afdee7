import ApplianceProtocol
import Foundation
import GRDB

/// Share links, one row each in table `shares`. Expired links are never answered and are swept when a new link
/// is made; revoking deletes the row.
extension Library {
    package func insertShare(token: String, recordingId: String, createdAt: Date, expiresAt: Date) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM shares WHERE expires_at <= ?", arguments: [Self.ms(createdAt)])
            try db.execute(sql: "INSERT INTO shares (token, recording_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                           arguments: [token, recordingId, Self.ms(createdAt), Self.ms(expiresAt)])
        }
    }

    /// The links still valid at `now`, newest first, with their clips' titles.
    package func shares(at now: Date = Date()) async throws -> [ShareLink] {
        try await database.read { db in
            try Row.fetchAll(db, sql: """
                SELECT s.token, s.recording_id, r.title, s.created_at, s.expires_at FROM shares s JOIN recordings r ON r.id = s.recording_id
                WHERE s.expires_at > ? ORDER BY s.created_at DESC
                """, arguments: [Self.ms(now)]).map(Self.share)
        }
    }

    /// The link for `token` if it is still valid at `now`.
    public func share(token: String, at now: Date = Date()) async throws -> ShareLink? {
        try await database.read { db in
            try Row.fetchOne(db, sql: """
                SELECT s.token, s.recording_id, r.title, s.created_at, s.expires_at FROM shares s JOIN recordings r ON r.id = s.recording_id
                WHERE s.token = ? AND s.expires_at > ?
                """, arguments: [token, Self.ms(now)]).map(Self.share)
        }
    }

    /// Deletes the link; false when there was none.
    package func deleteShare(token: String) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM shares WHERE token = ?", arguments: [token])
            return db.changesCount > 0
        }
    }

    private static func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    private static func share(_ row: Row) -> ShareLink {
        ShareLink(token: row[0], recordingId: row[1], title: row[2],
                  createdAt: Date(timeIntervalSince1970: Double(row[3] as Int64) / 1000),
                  expiresAt: Date(timeIntervalSince1970: Double(row[4] as Int64) / 1000))
    }
}
