import ApplianceProtocol
import Foundation
import GRDB
import XCTest

@testable import MediaLibrary

/// The upgrade to object activity (v11 makes the activity table again, for its new kind): a database migrated up to
/// v10 keeps every activity row with its number, and takes objects with their label and box after.
final class ObjectsMigrationTests: XCTestCase {
    func testActivityRowsAreKeptAndObjectsStoredAfterTheUpgrade() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "objects-upgrade-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("appliance.sqlite").path
        do {
            let old = try DatabaseQueue(path: path)
            try LibraryMigrations.migrator.migrate(old, upTo: "v10: accounts")
            try await old.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO activity (id, kind, label, camera, started_at, ended_at, zones, peak, thumbnail,
                        boot_id, boot_ms)
                        VALUES (7, 'motion', NULL, 'main', 1700000000000, 1700000004000, 'door', 0.05, '/p.jpg', 'b1',
                        1234)
                        """)
                XCTAssertThrowsError(
                    try db.execute(sql: "INSERT INTO activity (kind, started_at) VALUES ('object', 1)"),
                    "the old table refuses the new kind")
            }
        }
        let library = try Library(path: path)
        let kept = try await library.activity(id: 7)
        XCTAssertEqual(
            kept,
            Activity(
                id: 7, kind: .motion, camera: "main", startedAt: Date(timeIntervalSince1970: 1_700_000_000),
                endedAt: Date(timeIntervalSince1970: 1_700_000_004), zones: ["door"], peak: 0.05, thumbnail: "/p.jpg"))
        let boot = try await library.database.read { db in
            try Row.fetchOne(db, sql: "SELECT boot_id, boot_ms FROM activity WHERE id = 7").map {
                (id: $0["boot_id"] as String?, ms: $0["boot_ms"] as Int64?)
            }
        }
        XCTAssertEqual(boot?.id, "b1")
        XCTAssertEqual(boot?.ms, 1234)

        let box = ObjectBox(x: 0.25, y: 0.1, width: 0.125, height: 0.5)
        let person = try await library.insertActivity(
            Activity(
                id: 0, kind: .object, label: "person", startedAt: Date(timeIntervalSince1970: 1_700_000_010),
                peak: 0.82, box: box))
        XCTAssertGreaterThan(person.id, 7, "numbers go on after the kept rows")
        let read = try await library.activity(id: person.id)
        XCTAssertEqual(read?.kind, .object)
        XCTAssertEqual(read?.label, "person")
        XCTAssertEqual(read?.box, box)
        let objects = try await library.activity(ActivityFilter(kinds: [.object]))
        XCTAssertEqual(objects.items.map(\.id), [person.id])
        let indexes = try await library.database.read { db in
            try String.fetchAll(
                db,
                sql:
                    """
                    SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'activity' AND name NOT \
                    LIKE 'sqlite_%' ORDER BY name
                    """
            )
        }
        XCTAssertEqual(indexes, ["activity_by_boot", "activity_by_kind", "activity_by_label", "activity_by_start"])
    }
}
