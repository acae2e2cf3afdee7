import ApplianceProtocol
import Crypto
import Foundation
import GRDB

/// Share links, one row each in table `shares`, keyed by the SHA-256 of the token (`token_hash`): the database
/// never holds a token, so a copy of it opens no clip. (The token has 256 random bits, so a fast hash is enough: there
/// is nothing to guess.) Expired links are never answered and are swept when a new link is made; revoking deletes
/// the row.
extension Library {
    /// The hex SHA-256 of a token, as stored.
    public static func shareHash(token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A link's id: the first 16 hex digits of its hash (what lists show and `unshare` takes besides the token).
    public static func shareID(token: String) -> String { String(shareHash(token: token).prefix(ShareLink.idLength)) }

    package func insertShare(token: String, recordingId: String, createdAt: Date, expiresAt: Date) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM shares WHERE expires_at <= ?", arguments: [Self.ms(createdAt)])
            try db.execute(
                sql: "INSERT INTO shares (token_hash, recording_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                arguments: [Self.shareHash(token: token), recordingId, Self.ms(createdAt), Self.ms(expiresAt)])
        }
    }

    /// The links still valid at `now`, newest first, with their clips' titles (by id: the tokens are not kept).
    package func shares(at now: Date = Date()) async throws -> [ShareLink] {
        try await database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT s.token_hash, s.recording_id, r.title, s.created_at, s.expires_at
                    FROM shares s JOIN recordings r ON r.id = s.recording_id
                    WHERE s.expires_at > ? ORDER BY s.created_at DESC
                    """, arguments: [Self.ms(now)]
            ).map { Self.share($0, token: nil) }
        }
    }

    /// The link for `token` if it is still valid at `now`.
    public func share(token: String, at now: Date = Date()) async throws -> ShareLink? {
        try await database.read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT s.token_hash, s.recording_id, r.title, s.created_at, s.expires_at
                    FROM shares s JOIN recordings r ON r.id = s.recording_id
                    WHERE s.token_hash = ? AND s.expires_at > ?
                    """, arguments: [Self.shareHash(token: token), Self.ms(now)]
            ).map { Self.share($0, token: token) }
        }
    }

    /// Deletes the link named by its token or its id; the id of what was deleted, nil when there was none.
    package func deleteShare(_ link: String) async throws -> String? {
        let isID = ShareLink.isID(link)
        let hash = isID ? nil : Self.shareHash(token: link)
        return try await database.write { db in
            let found = try String.fetchOne(
                db,
                sql: isID
                    ? "SELECT token_hash FROM shares WHERE substr(token_hash, 1, \(ShareLink.idLength)) = ?"
                    : "SELECT token_hash FROM shares WHERE token_hash = ?",
                arguments: [isID ? link.lowercased() : hash])
            guard let found else { return nil }
            try db.execute(sql: "DELETE FROM shares WHERE token_hash = ?", arguments: [found])
            return String(found.prefix(ShareLink.idLength))
        }
    }

    private static func ms(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }

    private static func share(_ row: Row, token: String?) -> ShareLink {
        ShareLink(
            id: String((row[0] as String).prefix(ShareLink.idLength)), token: token, recordingId: row[1], title: row[2],
            createdAt: Date(timeIntervalSince1970: Double(row[3] as Int64) / 1000),
            expiresAt: Date(timeIntervalSince1970: Double(row[4] as Int64) / 1000))
    }
}
