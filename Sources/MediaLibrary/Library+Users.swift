import ApplianceProtocol
import Foundation
import GRDB

/// A stored account with the hashes that stand for its password (never the password itself).
package struct StoredUser: Sendable, Equatable {
    package var name: String
    package var role: UserRole
    package var passwordHash: String
    package var digestHA1: String
    package var createdAt: Date
    package var lastLogin: Date?
    /// Raised by every password change: a web session made under an older one has ended.
    package var generation: Int
    package var tokens: Int

    package var account: UserAccount {
        UserAccount(name: name, role: role, createdAt: createdAt, lastLogin: lastLogin, tokens: tokens)
    }
}

/// Accounts, one row each in `users`, and their API tokens' hashes in `user_tokens` (removed with the account).
extension Library {
    private static let userColumns = """
        u.name, u.role, u.password_hash, u.digest_ha1, u.created_at, u.last_login, u.generation,
        (SELECT COUNT(*) FROM user_tokens t WHERE t.name = u.name)
        """

    /// Adds an account; false when the name is taken.
    package func insertUser(name: String, role: UserRole, passwordHash: String, digestHA1: String, at now: Date)
        async throws -> Bool
    {
        try await database.write { db in
            try db.execute(
                sql:
                    """
                    INSERT OR IGNORE INTO users (name, role, password_hash, digest_ha1, created_at)
                    VALUES (?, ?, ?, ?, ?)
                    """,
                arguments: [name, role.rawValue, passwordHash, digestHA1, Self.milliseconds(now)])
            return db.changesCount > 0
        }
    }

    /// The accounts, read at once (the account book's start, before any service runs).
    package func usersNow() throws -> [StoredUser] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.userColumns) FROM users u ORDER BY u.name").map(Self.user)
        }
    }

    package func users() async throws -> [StoredUser] {
        try await database.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.userColumns) FROM users u ORDER BY u.name").map(Self.user)
        }
    }

    package func user(name: String) async throws -> StoredUser? {
        try await database.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.userColumns) FROM users u WHERE u.name = ?", arguments: [name])
                .map(Self.user)
        }
    }

    /// The account an API token's hash belongs to, marking the token used.
    package func user(tokenHash: String, at now: Date) async throws -> StoredUser? {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE user_tokens SET last_used = ? WHERE token_hash = ?",
                arguments: [Self.milliseconds(now), tokenHash])
            return try Row.fetchOne(
                db,
                sql: """
                    SELECT \(Self.userColumns) FROM users u JOIN user_tokens k ON k.name = u.name WHERE k.token_hash = ?
                    """, arguments: [tokenHash]
            ).map(Self.user)
        }
    }

    /// Sets the password's hashes and ends the account's sessions; false when there is no such account.
    package func updatePassword(name: String, passwordHash: String, digestHA1: String) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE users SET password_hash = ?, digest_ha1 = ?, generation = generation + 1 WHERE name = ?",
                arguments: [passwordHash, digestHA1, name])
            return db.changesCount > 0
        }
    }

    /// Sets an account's Digest HA1 (empty: none), leaving its password and sessions as they are.
    package func updateDigest(name: String, digestHA1: String) async throws {
        try await database.write { db in
            try db.execute(sql: "UPDATE users SET digest_ha1 = ? WHERE name = ?", arguments: [digestHA1, name])
        }
    }

    /// Forgets every account's Digest HA1 (RTSP is off: nothing needs them), zeroing where they lay.
    package func clearDigests() throws {
        try database.writeWithoutTransaction { db in
            guard try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM users WHERE digest_ha1 != ''") ?? 0 > 0 else {
                return
            }
            try db.execute(sql: "PRAGMA secure_delete = ON")
            try db.execute(sql: "UPDATE users SET digest_ha1 = ''")
            try db.execute(sql: "PRAGMA secure_delete = OFF")
        }
    }

    package func updateRole(name: String, role: UserRole) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "UPDATE users SET role = ? WHERE name = ?", arguments: [role.rawValue, name])
            return db.changesCount > 0
        }
    }

    package func recordLogin(name: String, at now: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE users SET last_login = ? WHERE name = ?", arguments: [Self.milliseconds(now), name])
        }
    }

    /// Removes the account and its tokens; false when there was none.
    package func deleteUser(name: String) async throws -> Bool {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM users WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
    }

    package func insertToken(name: String, tokenHash: String, at now: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "INSERT INTO user_tokens (token_hash, name, created_at) VALUES (?, ?, ?)",
                arguments: [tokenHash, name, Self.milliseconds(now)])
        }
    }

    package func deleteTokens(name: String) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM user_tokens WHERE name = ?", arguments: [name])
        }
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    private static func date(_ ms: Int64) -> Date { Date(timeIntervalSince1970: Double(ms) / 1000) }

    private static func user(_ row: Row) -> StoredUser {
        StoredUser(
            name: row[0], role: UserRole(rawValue: row[1]) ?? .viewer, passwordHash: row[2], digestHA1: row[3],
            createdAt: date(row[4]), lastLogin: (row[5] as Int64?).map(date), generation: row[6], tokens: row[7])
    }
}
