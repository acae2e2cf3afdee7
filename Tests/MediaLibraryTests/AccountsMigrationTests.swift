import ApplianceProtocol
import Foundation
import GRDB
import XCTest

@testable import MediaLibrary

/// The upgrade from a device without accounts: a database file migrated by the version before them (up to v9)
/// opens with its recordings kept and the accounts' tables added, empty.
final class AccountsMigrationTests: XCTestCase {
    func testADatabaseFromBeforeAccountsGainsThemAndKeepsItsRecordings() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "accounts-upgrade-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("appliance.sqlite").path
        do {
            let old = try DatabaseQueue(path: path)
            try LibraryMigrations.migrator.migrate(old, upTo: "v9: boot clock")
            try await old.write { db in
                try db.execute(
                    sql:
                        """
                        INSERT INTO recordings (id, title, created_at, path, state) VALUES ('a', 'kept', \
                        1700000000000, '/x/a.mp4', 'complete')
                        """
                )
            }
            let tables = try await old.read { db in
                try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            }
            XCTAssertFalse(tables.contains("users"), "the old schema has no accounts")
        }
        let library = try Library(path: path)
        let kept = try await library.fetch(id: "a")
        XCTAssertEqual(kept?.title, "kept")
        XCTAssertEqual(try library.usersNow(), [])
        let inserted = try await library.insertUser(
            name: "anna", role: .admin, passwordHash: "$2b$10$x", digestHA1: "0", at: Date())
        XCTAssertTrue(inserted)
        let names = try await library.users().map(\.name)
        XCTAssertEqual(names, ["anna"])
        let applied = try await library.database.read { db in
            try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        XCTAssertTrue(applied.contains("v10: accounts"))
    }
}
