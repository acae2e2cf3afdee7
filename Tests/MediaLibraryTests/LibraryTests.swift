import ApplianceBase
import ApplianceProtocol
import Foundation
import Mp4
import XCTest

@testable import MediaLibrary

final class LibraryTests: XCTestCase {
    private var directory: URL!
    private var library: Library!

    override func setUp() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "library-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        library = try Library.inMemory()
    }

    override func tearDown() async throws {
        library = nil
        try? FileManager.default.removeItem(at: directory)
    }

    private func row(_ id: String, secondsAgo: Double, title: String = "t") -> Recording {
        Recording(
            id: id, title: title, createdAt: Date(timeIntervalSinceNow: -secondsAgo), path: "/x/\(id).mp4",
            state: .complete)
    }

    private func id(_ n: Int) -> String { String(format: "%08x-0000-4000-8000-%012x", n, n) }

    func testPagesAreNewestFirstWithTotals() async throws {
        // Inserted out of order, with two rows sharing a timestamp (the rowid breaks the tie).
        for n in [3, 1, 4, 15, 9, 2, 6, 5, 13, 7, 8, 10, 11, 12, 14, 0, 16, 17, 18, 19, 20, 21, 22, 23, 24] {
            try await library.insert(row(id(n), secondsAgo: Double(100 - n)))
        }
        let first = try await library.page(1, perPage: 10)
        XCTAssertEqual(first.total, 25)
        XCTAssertEqual(first.items.map(\.id), (15...24).reversed().map(id))
        let value1 = try await library.page(2, perPage: 10)
        XCTAssertEqual(value1.items.map(\.id), (5...14).reversed().map(id))
        let value2 = try await library.page(3, perPage: 10)
        XCTAssertEqual(value2.items.map(\.id), (0...4).reversed().map(id))
        let value3 = try await library.page(4, perPage: 10)
        XCTAssertEqual(value3.items.count, 0)

        try await library.delete(id: id(24))
        try await library.delete(id: id(10))
        let after = try await library.page(1, perPage: 10)
        XCTAssertEqual(after.total, 23)
        XCTAssertEqual(after.items.first?.id, id(23))
        let value4 = try await library.page(3, perPage: 10)
        XCTAssertEqual(value4.items.map(\.id), (0...2).reversed().map(id))
    }

    func testRowsWithTheSameTimeAreAllListed() async throws {
        let date = Date()
        for n in 0..<5 {
            try await library.insert(Recording(id: id(n), title: "same", createdAt: date, path: "/p", state: .complete))
        }
        var ids: [String] = []
        for page in 1...3 { ids += try await library.page(page, perPage: 2).items.map(\.id) }
        XCTAssertEqual(Set(ids).count, 5)
        XCTAssertEqual(ids, (0..<5).reversed().map(id), "newest rowid first among equal times")
    }

    func testTheIndexIsRebuiltFromTheDatabase() async throws {
        let file = directory.appendingPathComponent("appliance.sqlite").path
        library = try Library(path: file)
        for n in 0..<12 { try await library.insert(row(id(n), secondsAgo: Double(50 - n))) }
        library = try Library(path: file)
        XCTAssertEqual(library.count, 12)
        let value5 = try await library.page(2, perPage: 10)
        XCTAssertEqual(value5.items.map(\.id), [id(1), id(0)])
    }

    func testIdsResolveByUniquePrefix() async throws {
        try await library.insert(row("abcd0000-0000-4000-8000-000000000001", secondsAgo: 1))
        try await library.insert(row("abcd0000-0000-4000-8000-000000000002", secondsAgo: 2))
        try await library.insert(row("ef010000-0000-4000-8000-000000000003", secondsAgo: 3))
        let value6 = try await library.resolve("ef")
        XCTAssertEqual(value6.id, "ef010000-0000-4000-8000-000000000003")
        let value7 = try await library.resolve("ABCD0000-0000-4000-8000-000000000002")
        XCTAssertEqual(value7.id, "abcd0000-0000-4000-8000-000000000002")
        await assertThrows(try await library.resolve("abcd")) { "\($0)".contains("ambiguous") }
        await assertThrows(try await library.resolve("99")) { "\($0)".contains("no recording") }
        await assertThrows(try await library.resolve("x'; DROP TABLE recordings;--")) {
            "\($0)".contains("not a recording id")
        }
        await assertThrows(try await library.resolve("")) { "\($0)".contains("not a recording id") }
    }

    func testUpdatesKeepTheCreationDateAndSurviveReopening() async throws {
        let original = row(id(1), secondsAgo: 10)
        try await library.insert(original)
        let renamed = try await library.update(id: id(1)) { row in
            row.title = "Ünïcödé 🎥 \"x\" / y"
            row.createdAt = Date()  // ignored
            row.locked = true
        }
        XCTAssertEqual(
            renamed.createdAt.timeIntervalSince1970, original.createdAt.timeIntervalSince1970, accuracy: 0.001)
        let fetched = try await library.fetch(id: id(1))
        XCTAssertEqual(fetched?.title, "Ünïcödé 🎥 \"x\" / y")
        XCTAssertEqual(fetched?.locked, true)
        await assertThrows(try await library.update(id: id(2)) { _ in }) { "\($0)".contains("no recording") }
    }

    func testSchemaRejectsUnknownStatesAndUsesWAL() async throws {
        library = try Library(path: directory.appendingPathComponent("library.sqlite").path)  // WAL needs a file
        let mode = try await library.database.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        XCTAssertEqual(mode, "wal")
        await assertThrows(
            try await library.database.write { db in
                try db.execute(
                    sql:
                        """
                        INSERT INTO recordings (id, title, created_at, path, state) VALUES ('x', 't', 0, '/p', \
                        'bogus')
                        """
                )
            }
        ) { "\($0)".contains("CHECK") }
    }

    private func assertThrows<T>(
        _ expression: @autoclosure () async throws -> T, file: StaticString = #filePath, line: UInt = #line,
        _ check: (Error) -> Bool
    ) async {
        do {
            _ = try await expression()
            XCTFail("expected an error", file: file, line: line)
        } catch {
            XCTAssertTrue(check(error), "\(error)", file: file, line: line)
        }
    }

    func testActivityLeftOpenIsClosedAtItsStart() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let open = try await library.insertActivity(
            Activity(id: 0, kind: .motion, camera: "front", startedAt: start, zones: ["door", "path"], peak: 0.2))
        _ = try await library.insertActivity(
            Activity(id: 0, kind: .sound, startedAt: start, endedAt: start.addingTimeInterval(3), peak: -12))
        let closed = try await library.closeOpenActivity()
        XCTAssertEqual(closed.map(\.id), [open.id])
        let stored = try await library.activity(id: open.id)
        XCTAssertEqual(stored?.endedAt, start)
        XCTAssertEqual(stored?.zones, ["door", "path"])
        XCTAssertEqual(stored?.camera, "front")
        let again = try await library.closeOpenActivity()
        XCTAssertEqual(again, [])
    }

    func testOldActivityIsForgottenByAgeAndBeyondTheCap() async throws {
        let now = Date()
        for days in [40.0, 20, 3, 2, 1] {
            let at = now.addingTimeInterval(-days * 86_400)
            _ = try await library.insertActivity(
                Activity(
                    id: 0, kind: .external, label: "\(Int(days))", startedAt: at, endedAt: at,
                    thumbnail: "/pictures/\(Int(days)).jpg"))
        }
        let aged = try await library.deleteActivity(startedBefore: now.addingTimeInterval(-30 * 86_400), keep: 100)
        XCTAssertEqual(aged, ["/pictures/40.jpg"], "the picture goes with it")
        let capped = try await library.deleteActivity(startedBefore: nil, keep: 2)
        XCTAssertEqual(Set(capped), ["/pictures/20.jpg", "/pictures/3.jpg"])
        let left = try await library.activity(ActivityFilter())
        XCTAssertEqual(left.items.map(\.label), ["1", "2"])
    }

    /// A file's start is its first frame (`started_at`), which pre-record puts before its row's `created_at`: a
    /// clip a crash cut short (its `ended_at` the file's last write, later than its last frame) still holds an
    /// activity that began in its pre-roll; one that began before its first frame is not held.
    func testAnActivityInAPreRollIsHeldByTheClipEvenWhenACrashCutItShort() async throws {
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        var recovered = Recording(id: id(1), title: "r", createdAt: base, path: "/r.mp4", state: .recovered)
        recovered.startedAt = base.addingTimeInterval(-1.5)
        recovered.endedAt = base.addingTimeInterval(60.4)
        recovered.durationMs = 60_000  // ended_at less its media: 0.4 s after created_at
        try await library.insert(recovered)
        let inPreRoll = try await library.insertActivity(
            Activity(id: 0, kind: .motion, startedAt: base.addingTimeInterval(-0.6)))
        let before = try await library.insertActivity(
            Activity(id: 0, kind: .motion, startedAt: base.addingTimeInterval(-1.7)))
        let clips = Dictionary(
            uniqueKeysWithValues: try await library.activity(ActivityFilter()).items.map { ($0.id, $0.clip) })
        XCTAssertEqual(clips[inPreRoll.id], recovered.id)
        XCTAssertEqual(clips[before.id], .some(nil))
    }

    func testOnlyRecordingsThatMeetAnActivityAreMarked() async throws {
        let base = Date(timeIntervalSince1970: 1_800_000_000)
        for n in 0..<4 {
            var r = Recording(
                id: id(n), title: "s\(n)", createdAt: base.addingTimeInterval(Double(n) * 10), path: "/p\(n)",
                state: .complete)
            r.endedAt = r.createdAt.addingTimeInterval(10)
            try await library.insert(r)
        }
        let marked = try await library.markCovering(
            from: base.addingTimeInterval(12), to: base.addingTimeInterval(25), longest: 60)
        XCTAssertEqual(marked, 2, "segments 1 and 2")
        let flagged = try await library.oldest(locked: false, backedUp: nil, hasEvent: true, after: nil, limit: 10).rows
            .map(\.id)
        XCTAssertEqual(flagged, [id(1), id(2)])
        let again = try await library.markCovering(
            from: base.addingTimeInterval(12), to: base.addingTimeInterval(25), longest: 60)
        XCTAssertEqual(again, 0, "already marked")
        // A tracked object weighs more: segment 2 is raised, and an activity never lowers it again.
        let raised = try await library.markCovering(
            from: base.addingTimeInterval(22), to: base.addingTimeInterval(28), longest: 60, weight: .object)
        XCTAssertEqual(raised, 1)
        let lowered = try await library.markCovering(
            from: base.addingTimeInterval(22), to: base.addingTimeInterval(28), longest: 60)
        XCTAssertEqual(lowered, 0)
        var byWeight: [Library.EventWeight: [String]] = [:]
        for weight in Library.EventWeight.allCases {
            byWeight[weight] = try await library.oldest(
                locked: false, backedUp: nil, weight: weight, after: nil, limit: 10
            ).rows.map(\.id)
        }
        XCTAssertEqual(byWeight, [.none: [id(0), id(3)], .activity: [id(1)], .object: [id(2)]])
        let anyEvent = try await library.oldest(locked: false, backedUp: nil, hasEvent: true, after: nil, limit: 10)
            .rows.map(\.id)
        XCTAssertEqual(anyEvent, [id(1), id(2)])
    }
}

final class PageIndexTests: XCTestCase {
    func testKeysStayOrderedNewestFirst() {
        var index = PageIndex(keys: [
            .init(createdAt: 5, rowid: 1), .init(createdAt: 9, rowid: 2), .init(createdAt: 5, rowid: 3),
        ])
        XCTAssertEqual(index.keys.map(\.rowid), [2, 3, 1])
        index.insert(.init(createdAt: 7, rowid: 4))
        index.insert(.init(createdAt: 1, rowid: 5))
        XCTAssertEqual(index.keys.map(\.rowid), [2, 4, 3, 1, 5])
        index.remove(.init(createdAt: 5, rowid: 3))
        index.remove(.init(createdAt: 5, rowid: 99))  // absent: nothing happens
        XCTAssertEqual(index.keys.map(\.rowid), [2, 4, 1, 5])
        XCTAssertEqual(index.key(at: 1)?.rowid, 4)
        XCTAssertNil(index.key(at: 4))
    }
}
