import ApplianceProtocol
import Foundation
import GRDB
import XCTest

@testable import MediaLibrary

/// The upgrade that hashes share tokens (v13): a link handed out before it keeps working by its token, is listed by
/// id, and the database file no longer contains the token anywhere.
final class SharesMigrationTests: XCTestCase {
    func testLinksMadeBeforeKeepWorkingAndTheirTokensAreGoneFromTheFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "shares-upgrade-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("appliance.sqlite").path
        let token = "old_link_token_Q2xlYXIgdGV4dCBiZWZvcmUgdjEz"
        let id = "0123abcd-0000-4000-8000-000000000013"
        let expires = Int64(Date().addingTimeInterval(3600).timeIntervalSince1970 * 1000)
        do {
            let old = try DatabaseQueue(path: path)
            try LibraryMigrations.migrator.migrate(old, upTo: "v12: upload resume")
            try await old.write { db in
                try db.execute(
                    sql:
                        """
                        INSERT INTO recordings (id, title, created_at, path, state) VALUES (?, 'kept', \
                        1700000000000, '/x.mp4', 'complete')
                        """,
                    arguments: [id])
                try db.execute(
                    sql:
                        """
                        INSERT INTO shares (token, recording_id, created_at, expires_at) VALUES (?, ?, \
                        1700000000000, ?)
                        """,
                    arguments: [token, id, expires])
            }
        }
        let library = try Library(path: path)
        let found = try await library.share(token: token)
        XCTAssertEqual(found?.recordingId, id, "the link handed out before still opens its clip")
        let listed = try await library.shares()
        XCTAssertEqual(listed.map(\.id), [Library.shareID(token: token)])
        try await library.database.writeWithoutTransaction { db in _ = try db.checkpoint(.truncate) }
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        bytes += (try? Data(contentsOf: URL(fileURLWithPath: path + "-wal"))) ?? Data()
        XCTAssertNil(bytes.range(of: Data(token.utf8)), "the token is nowhere in the database file")
        XCTAssertNotNil(bytes.range(of: Data(Library.shareHash(token: token).utf8)))
    }
}
