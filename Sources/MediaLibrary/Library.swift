import ApplianceBase
import ApplianceProtocol
import Foundation
import GRDB

/// The recordings database: `<data_dir>/appliance.sqlite` in WAL mode. All reads and writes of recording rows go
/// through here, which also keeps the in-memory `PageIndex` in step.
public final class Library: Sendable {
    /// The database file; nil for an in-memory library (tests).
    public let path: String?
    /// A WAL pool on a file in the daemon (readers never wait for the writer), a queue in memory in tests.
    package let database: any DatabaseWriter
    private let index: Locked<PageIndex>
    /// The grouped list's entries (a loop recording as one), kept in step with `index`.
    package let entries: Locked<EntryIndex>

    public struct Page: Sendable {
        public var items: [Recording]
        public var total: Int
        public var page: Int
        public var perPage: Int
    }

    /// Opens (creating and migrating) the database file, its owner's alone (0600) whatever the umask: it holds the
    /// accounts' password hashes and the share links. SQLite gives its WAL and shared-memory files the database's mode.
    public convenience init(path: String) throws {
        try Self.makePrivate(path)
        let database: DatabasePool
        do {
            database = try DatabasePool(path: path, configuration: Self.configuration)
        } catch {
            throw LibraryError.storage("cannot open the database \(path): \(error)")
        }
        try self.init(database: database, path: path)
    }

    /// Creates the database file 0600 if it is not there, and takes group and others' access from one that is (and
    /// from its WAL and shared-memory files, which a daemon of an earlier version may have left readable).
    static func makePrivate(_ path: String) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw LibraryError.storage("cannot create the database \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        _ = fchmod(fd, 0o600)  // best effort, as for the data folder: a FAT card's modes are its mount options'
        for companion in [path + "-wal", path + "-shm"] { _ = chmod(companion, 0o600) }
    }

    /// An empty library in memory, migrated like a file: for tests of what sits on top of it.
    public static func inMemory() throws -> Library {
        try Library(database: try DatabaseQueue(configuration: configuration), path: nil)
    }

    /// Migrates `database` and loads the page index from it.
    package init(database: any DatabaseWriter, path: String?) throws {
        (self.database, self.path) = (database, path)
        do {
            try LibraryMigrations.migrator.migrate(database)
            let rows = try database.read(Self.indexRows)
            index = Locked(PageIndex(keys: rows.map(\.key)))
            entries = Locked(EntryIndex(rows: rows))
        } catch {
            throw LibraryError.storage("cannot open the database \(path ?? "in memory"): \(error)")
        }
    }

    /// Every row's sort key and group: what the page and entry indexes are built from.
    private static func indexRows(_ db: Database) throws -> [(key: PageIndex.Key, group: String?)] {
        try Row.fetchAll(db, sql: "SELECT created_at, rowid, group_id FROM recordings").map { row in
            (key: PageIndex.Key(createdAt: row[0], rowid: row[1]), group: row[2] as String?)
        }
    }

    /// Builds the indexes again from the table: after rows were dated again (`redate`), their keys moved.
    func reloadIndexes() async throws {
        let rows = try await database.read(Self.indexRows)
        index.withLock { $0 = PageIndex(keys: rows.map(\.key)) }
        entries.withLock { $0 = EntryIndex(rows: rows) }
    }

    private static var configuration: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        return configuration
    }

    public enum LibraryError: Error, CustomStringConvertible {
        case notFound(String)
        case ambiguous(String, [String])
        case invalidID(String)
        case storage(String)

        public var description: String {
            switch self {
            case .notFound(let id): "no recording with id \(id)"
            case .ambiguous(let prefix, let matches):
                "id prefix \(prefix) is ambiguous: \(matches.joined(separator: ", "))…"
            case .invalidID(let id): "\"\(id)\" is not a recording id (hex digits and dashes)"
            case .storage(let message): message
            }
        }
    }

    // MARK: writes

    /// Inserts a new row (a recording starting, or one adopted by recovery). A recording starting (state
    /// `recording`) is stamped with the boot clock, so that a jump of the wall clock can date it again.
    public func insert(_ recording: Recording) async throws {
        let (key, datedByTheClockNow) = try await database.write { db -> (PageIndex.Key, Bool) in
            try recording.insert(db)
            let rowid = db.lastInsertedRowID
            // The stored value is the key: read it back rather than converting the Date a second time.
            let createdAt =
                try Int64.fetchOne(db, sql: "SELECT created_at FROM recordings WHERE rowid = ?", arguments: [rowid])
                ?? 0
            let live = recording.state == .recording
            let dated = try !live || Self.stampStartingRecording(db, rowid: rowid, wallMs: createdAt)
            return (PageIndex.Key(createdAt: createdAt, rowid: rowid), dated)
        }
        index.withLock { $0.insert(key) }
        entries.withLock { $0.insert(key, group: recording.group) }
        if !datedByTheClockNow { try await redate() }
    }

    /// Inserts many rows in one transaction (benchmarks and imports).
    public func insertBatch(_ recordings: [Recording]) async throws {
        let keys = try await database.write { db -> [PageIndex.Key] in
            try recordings.map { recording in
                try recording.insert(db)
                let rowid = db.lastInsertedRowID
                let createdAt =
                    try Int64.fetchOne(db, sql: "SELECT created_at FROM recordings WHERE rowid = ?", arguments: [rowid])
                    ?? 0
                return PageIndex.Key(createdAt: createdAt, rowid: rowid)
            }
        }
        index.withLock { index in index = PageIndex(keys: index.keys + keys) }
        entries.withLock { entries in
            for (key, recording) in zip(keys, recordings) { entries.insert(key, group: recording.group) }
        }
    }

    /// Applies a change to one row in a transaction and returns the new row. The creation date never changes.
    @discardableResult
    public func update(id: String, _ change: @escaping @Sendable (inout Recording) -> Void) async throws -> Recording {
        try await database.write { db in
            guard var row = try Recording.fetchOne(db, key: id) else { throw LibraryError.notFound(id) }
            let createdAt = row.createdAt
            change(&row)
            row.createdAt = createdAt
            try row.update(db)
            return row
        }
    }

    /// Applies one change to many rows in a single transaction (start-up reconciliation at 100,000 rows).
    public func updateAll(ids: [String], _ change: @escaping @Sendable (inout Recording) -> Void) async throws {
        guard !ids.isEmpty else { return }
        try await database.write { db in
            for id in ids {
                guard var row = try Recording.fetchOne(db, key: id) else { continue }
                let createdAt = row.createdAt
                change(&row)
                row.createdAt = createdAt
                try row.update(db)
            }
        }
    }

    /// Deletes the row (the caller removes the files first).
    public func delete(id: String) async throws {
        let removed = try await database.write { db -> (key: PageIndex.Key, group: String?)? in
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT created_at, rowid, group_id FROM recordings WHERE id = ?", arguments: [id])
            else {
                return nil
            }
            try db.execute(sql: "DELETE FROM recordings WHERE id = ?", arguments: [id])
            return (PageIndex.Key(createdAt: row[0], rowid: row[1]), row[2])
        }
        if let removed {
            index.withLock { $0.remove(removed.key) }
            entries.withLock { $0.remove(removed.key, group: removed.group) }
        }
    }

    // MARK: reads

    public func fetch(id: String) async throws -> Recording? {
        try await database.read { db in try Recording.fetchOne(db, key: id) }
    }

    /// Resolves a full id or a unique prefix of one (like git).
    public func resolve(_ prefix: String) async throws -> Recording {
        let needle = prefix.lowercased()
        guard !needle.isEmpty, needle.count <= 36, needle.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw LibraryError.invalidID(prefix)
        }
        let matches = try await database.read { db in
            // A range on the primary key: uses the index, unlike LIKE.
            try Recording.fetchAll(
                db, sql: "SELECT * FROM recordings WHERE id >= ? AND id < ? ORDER BY id LIMIT 6",
                arguments: [needle, needle + "\u{10FFFF}"])
        }
        if let exact = matches.first(where: { $0.id == needle }) { return exact }
        guard let first = matches.first else { throw LibraryError.notFound(prefix) }
        guard matches.count == 1 else { throw LibraryError.ambiguous(prefix, matches.prefix(5).map(\.id)) }
        return first
    }

    /// How many rows come before page `page` (1-based) of `perPage`; nil where that is no row at all (a page below 1,
    /// a size below 1, or a product past `Int`: the callers bound both, and this keeps a missed bound from trapping).
    static func rowsBefore(page: Int, perPage: Int) -> Int? {
        guard page >= 1, perPage >= 1 else { return nil }
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: perPage)
        return overflow ? nil : offset
    }

    /// Page `page` (1-based) of `perPage` rows, newest first, with the total count.
    public func page(_ page: Int, perPage: Int) async throws -> Page {
        let offset = Self.rowsBefore(page: page, perPage: perPage)
        let (start, total) = index.withLock { (offset.flatMap($0.key(at:)), $0.count) }
        guard let start else { return Page(items: [], total: total, page: page, perPage: perPage) }
        let items = try await database.read { db in
            try Recording.fetchAll(
                db,
                sql: """
                    SELECT * FROM recordings
                    WHERE (created_at, rowid) <= (?, ?)
                    ORDER BY created_at DESC, rowid DESC
                    LIMIT ?
                    """, arguments: [start.createdAt, start.rowid, perPage])
        }
        return Page(items: items, total: total, page: page, perPage: perPage)
    }

    public var count: Int { index.withLock { $0.count } }

    /// What start-up reconciliation needs of a row: one string (the path) and small integers, so 100,000 rows
    /// read in a fraction of the time whole records take. Ids are read only for the rows that change (`ids(of:)`).
    package struct PathRow: Sendable {
        package var rowid: Int64
        package var path: String
        package var state: Recording.State
        /// A failed row whose file had gone missing (it comes back when the file does).
        package var lostItsFile: Bool
    }

    /// `createdBefore`: only rows created before then (a running daemon's own recordings are not checked).
    package func pathRows(missingFileReason: String, createdBefore: Date? = nil) async throws -> [PathRow] {
        let before = createdBefore.map(Recording.milliseconds) ?? .max
        return try await database.read { db in
            var rows: [PathRow] = []
            rows.reserveCapacity(self.count)
            let request: SQLRequest<Row> = """
                SELECT rowid, path, state,
                  state = \(Recording.State.failed) AND failure_reason LIKE \(missingFileReason) || '%'
                FROM recordings WHERE created_at < \(before)
                """
            let cursor = try request.fetchCursor(db)
            while let row = try cursor.next() {
                rows.append(
                    PathRow(
                        rowid: row[0], path: row[1], state: Recording.State(rawValue: row[2]) ?? .failed,
                        lostItsFile: row[3]))
            }
            return rows
        }
    }

    /// Ids of rows by rowid, in the order given ("" for a rowid with no row), looked up a batch at a time.
    package func ids(of rowids: [Int64]) async throws -> [String] {
        var ids: [Int64: String] = [:]
        for batch in rowids.chunked(Self.reconcileBatch) {
            let request = SQLRequest<Row>(literal: "SELECT rowid, id FROM recordings WHERE rowid IN \(Array(batch))")
            // Pairs, not rows: the async read hands back only what is Sendable (a `Row` is not).
            let pairs = try await database.read { db in
                try Row.fetchAll(db, request).map { (rowid: $0[0] as Int64, id: $0[1] as String) }
            }
            for pair in pairs { ids[pair.rowid] = pair.id }
        }
        return rowids.map { ids[$0] ?? "" }
    }

    /// Size of the database files on disk (main file + WAL).
    public var sizeBytes: Int64 {
        guard let path else { return 0 }
        return [path, path + "-wal", path + "-shm"].reduce(0) { total, file in
            total + (DataDirectory.fileSize(file) ?? 0)
        }
    }
}
