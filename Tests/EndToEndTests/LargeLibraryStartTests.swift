import ApplianceProtocol
import Foundation
import Supervision
import TestSupport
import XCTest

/// Issue 59: start-up never waits on the library. A library of `LargeLibrary.rows` rows (copies of a real clip's
/// row, written with the sqlite3 tool) whose files are gone, as after a folder deleted by hand: the daemon is ready
/// and records within 5 s of its start; the rows are marked failed in the background, and that is reported when
/// done. `APPLIANCE_LARGE_LIBRARY_ROWS` sets the size (make bench runs 1,000,000).
final class LargeLibraryStartTests: XCTestCase {
    static var rows: Int { Int(ProcessInfo.processInfo.environment["APPLIANCE_LARGE_LIBRARY_ROWS"] ?? "") ?? 100_000 }

    func testAHundredThousandRowsWhoseFilesAreGoneDoNotDelayTheStart() throws {
        try measureTheStart(rows: Self.rows, filesPresent: false)
    }

    /// The same library with every file there (hard links to one clip): nothing to mark, the walk and the match only.
    func testAHundredThousandRowsWithTheirFilesDoNotDelayTheStart() throws {
        try measureTheStart(rows: Self.rows, filesPresent: true)
    }

    private func measureTheStart(rows: Int, filesPresent: Bool) throws {
        try XCTSkipUnless(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"),
            "sqlite3 writes the rows (packaging/install-deps.sh --test)")
        let daemon = try DaemonProcess()
        try daemon.start()
        let clip = try daemon.recordStart()
        try daemon.waitUntilRecorded(1)
        let recorded = try daemon.recordStop()
        _ = daemon.stop()
        let copies = daemon.dataDir + "/recordings/copies"
        try LargeLibrary.copy(
            clip.id, rows: rows, database: daemon.dataDir + "/appliance.sqlite",
            pathPrefix: filesPresent ? copies + "/" : "/nowhere/")
        if filesPresent {
            try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: true)
            // ext4 allows 65,000 links to a file: a new copy to link to every 50,000.
            var source = recorded.path
            for n in 1...rows {
                if n % 50_000 == 0 {
                    source = "\(copies)/\(n).mp4"
                    try FileManager.default.copyItem(atPath: recorded.path, toPath: source)
                    continue
                }
                try FileManager.default.linkItem(atPath: source, toPath: "\(copies)/\(n).mp4")
            }
        }

        let started = Date()
        try daemon.start(timeout: 60, waitForReconcile: false)
        defer { daemon.stop() }
        let ready = Date().timeIntervalSince(started)
        let recording = try daemon.recordStart()
        try daemon.waitUntilRecorded(0.5)
        let recordingAfter = Date().timeIntervalSince(started)
        _ = try daemon.recordStop()
        let what = filesPresent ? "files present" : "files gone"
        print(
            String(
                format: "LargeLibraryStartTests: %d rows, %@: ready %.2f s, recording %.2f s after the start", rows,
                what, ready, recordingAfter))
        XCTAssertLessThan(recordingAfter, 5, "ready and recording within 5 s of the start: \(daemon.log)")
        // The reconcile goes on in the background and is reported when done.
        XCTAssertTrue(daemon.waitFor(600) { daemon.log.contains("library reconciled") }, "the reconcile ends")
        let line = daemon.log.components(separatedBy: "\n").first { $0.contains("library reconciled") } ?? ""
        print("LargeLibraryStartTests: \(line)")
        XCTAssertTrue(line.contains("failed=\(filesPresent ? 0 : rows) "), "\(what): \(line)")
        let failed = try LargeLibrary.sqlite(
            daemon.dataDir + "/appliance.sqlite", "SELECT count(*) FROM recordings WHERE state = 'failed';")
        XCTAssertEqual(Int(failed.trimmingCharacters(in: .whitespacesAndNewlines)), filesPresent ? 0 : rows)
        XCTAssertNotEqual(
            try daemon.info(recording.id).recording.state, .failed, "the clip recorded meanwhile is whole")
    }
}

/// Rows written straight into the library with the sqlite3 tool: copies of one row, each with its own id, path and
/// time, in one transaction (a million in seconds, where a million inserts through the daemon would take an hour).
enum LargeLibrary {
    static func copy(_ id: String, rows: Int, database: String, pathPrefix: String) throws {
        let columns = try sqlite(database, "SELECT name FROM pragma_table_info('recordings') WHERE name <> 'rowid';")
            .split(separator: "\n").map(String.init)
        let values = columns.map { column -> String in
            switch column {
            case "id": return "printf('%08x-0000-4000-8000-%012x', n, n)"
            case "path": return "'\(pathPrefix)' || n || '.mp4'"
            case "title": return "'copy ' || n"
            case "created_at": return "created_at - n * 60000"
            case "ended_at": return "ended_at - n * 60000"
            // Recorded in an earlier boot: the boot clock's stamp would date them again (ClockWatch).
            case "boot_id", "boot_ms": return "NULL"
            default: return column
            }
        }
        let sql = """
            BEGIN;
            WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < \(rows))
            INSERT INTO recordings (\(columns.joined(separator: ", ")))
            SELECT \(values.joined(separator: ", ")) FROM c, (SELECT * FROM recordings WHERE id = '\(id)');
            COMMIT;
            """
        _ = try sqlite(database, sql)
    }

    @discardableResult
    static func sqlite(_ database: String, _ sql: String) throws -> String {
        let run = try ProcessOutcome.run("/usr/bin/sqlite3", ["-cmd", ".timeout 10000", database, sql], timeout: 600)
        guard run.status == 0 else { throw DaemonError(message: "sqlite3: \(run.output)") }
        return run.stdout
    }
}
