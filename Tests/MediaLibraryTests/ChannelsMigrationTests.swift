import ApplianceProtocol
import Foundation
import GRDB
import XCTest

@testable import MediaLibrary

/// The upgrade that adds channels (v14): rows from before have none (they are the first channel's); rows written
/// since keep theirs.
final class ChannelsMigrationTests: XCTestCase {
    func testOldRowsHaveNoChannelAndNewOnesKeepTheirs() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "channels-upgrade-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("appliance.sqlite").path
        let old = "0123abcd-0000-4000-8000-000000000014"
        do {
            let queue = try DatabaseQueue(path: path)
            try LibraryMigrations.migrator.migrate(queue, upTo: "v13: share tokens hashed")
            try await queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO recordings (id, title, created_at, path, state)
                        VALUES (?, 'before', 1700000000000, '/x.mp4', 'complete')
                        """,
                    arguments: [old])
                try db.execute(
                    sql: "INSERT INTO activity (kind, label, started_at) VALUES ('external', 'door', 1700000000000)")
            }
        }
        let library = try Library(path: path)
        let before = try await library.fetch(id: old)
        XCTAssertEqual(before?.title, "before")
        XCTAssertNil(before?.channel)
        let oldMark = try await library.activity(id: 1)
        XCTAssertEqual(oldMark?.label, "door")
        XCTAssertNil(oldMark?.channel)

        var clip = Recording(
            id: "0123abcd-0000-4000-8000-000000000015", title: "rear", createdAt: Date(), path: "/y.mp4",
            state: .complete)
        clip.channel = "rear"
        try await library.insert(clip)
        let stored = try await library.fetch(id: clip.id)
        XCTAssertEqual(stored?.channel, "rear")
        var mark = Activity(id: 0, kind: .external, label: "gate", startedAt: Date())
        mark.channel = "rear"
        let main = try await library.filteredPage(
            ListFilter(channel: "main"), firstChannel: "main", page: 1, perPage: 10)
        XCTAssertEqual(main.items.map(\.id), [old], "the first channel's clips include those from before channels")
        let rear = try await library.filteredPage(
            ListFilter(channel: "rear"), firstChannel: "main", page: 1, perPage: 10)
        XCTAssertEqual(rear.items.map(\.id), [clip.id])
        // What each channel keeps: the row from before channels is the first channel's; a clip still recording
        // is not kept yet.
        _ = try await library.update(id: clip.id) { $0.sizeBytes = 2_000 }
        var live = Recording(
            id: "0123abcd-0000-4000-8000-000000000016", title: "live", createdAt: Date(), path: "/z.mp4",
            state: .recording)
        live.channel = "rear"
        try await library.insert(live)
        let usage = try await library.channelUsage(first: "main")
        XCTAssertEqual(
            usage["main"], Library.ChannelUsage(clips: 1, bytes: 0, oldest: Date(timeIntervalSince1970: 1_700_000_000)))
        XCTAssertEqual(usage["rear"]?.clips, 1)
        XCTAssertEqual(usage["rear"]?.bytes, 2_000)
        let marked = try await library.insertActivity(mark)
        let read = try await library.activity(id: marked.id)
        XCTAssertEqual(read?.channel, "rear")
    }
}
