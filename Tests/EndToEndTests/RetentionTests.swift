import ApplianceBase
import ApplianceProtocol
import Foundation
import XCTest

/// `[storage]` retention in a running daemon: the oldest unlocked clips go, locked ones never (on_full = "stop"),
/// `protect` locks around now, and when only locked clips are left the recording ends cleanly and says why.
final class RetentionTests: XCTestCase {
    func testLockedClipsSurviveAndFullStorageStopsCleanly() throws {
        // 1 s segments of about 130 kB; clips may take 1 MB in all.
        let daemon = try DaemonProcess(
            extra: FrameContinuity.config + """

                [recording]
                segment_s = 1.0
                [storage]
                max_used_gb = 0.001
                min_free_mb = 0
                max_locked_percent = 100
                """, cameras: FrameContinuity.camera)
        try daemon.start()
        defer { daemon.stop() }
        let events = try EventListener(daemon, timeout: 60)
        _ = try daemon.recordStart()
        try daemon.waitUntilElapsed(2.5)
        // The clips of the last 10 s (the first segments) are locked as an event.
        let protect = try daemon.ctl(["--json", "protect", "--before", "10", "--after", "0"])
        XCTAssertEqual(protect.status, 0, protect.stderr)
        let locked = try XCTUnwrap(protect.json?["locked"] as? [String])
        XCTAssertGreaterThanOrEqual(locked.count, 2)
        for id in locked {
            let info = try daemon.info(id).recording
            XCTAssertEqual(info.locked, true)
            XCTAssertEqual(info.lockReason, "event")
        }

        // Unlocked segments are deleted oldest first as the budget fills; never a locked one.
        var deleted: [[String: Any]] = []
        while deleted.count < 3 {
            let event = try events.next()
            if event.name == "retention_deleted" { deleted.append(event.data) }
        }
        for event in deleted {
            XCTAssertEqual(event["locked"] as? Bool, false)
            XCTAssertEqual(event["reason"] as? String, "max_used_gb")
            XCTAssertFalse(locked.contains(event["id"] as? String ?? ""))
            XCTAssertFalse(FileManager.default.fileExists(atPath: event["path"] as? String ?? "/"))
        }
        let created = deleted.compactMap { $0["created_at"] as? String }
        XCTAssertEqual(created, created.sorted(), "oldest first")
        // An event over a window retention already cleared reports the segments it can no longer lock.
        let late = try daemon.ctl(["--json", "protect", "--before", "8", "--after", "0"])
        let gone = try XCTUnwrap(late.json?["already_deleted"] as? [String], late.stdout + late.stderr)
        XCTAssertGreaterThanOrEqual(gone.count, 1, "\(late.stdout)")
        XCTAssertTrue(gone.allSatisfy { $0.hasPrefix(locked[0]) }, "\(gone)")

        // Everything from now on is locked too: once only locked clips are left, the recording stops cleanly.
        XCTAssertEqual(try daemon.ctl(["protect", "--before", "0", "--after", "600"]).status, 0)
        var full: [String: Any]?
        var stopped: [String: Any]?
        while full == nil || stopped == nil {
            let event = try events.next()
            if event.name == "storage_full" { full = event.data }
            if event.name == "recording_stopped" { stopped = event.data }
        }
        XCTAssertEqual(full?["stopped_recording"] as? Bool, true)
        XCTAssertTrue((full?["reason"] as? String ?? "").contains("max_used_gb"), "\(full ?? [:])")
        XCTAssertEqual(stopped?["stop_reason"] as? String, "storage_full")
        XCTAssertEqual(try MediaProbe(try XCTUnwrap(stopped?["path"] as? String)).decodeErrors(), "")
        let status = try daemon.status()
        XCTAssertEqual(status.state, .idle)
        XCTAssertNotNil(status.storageFull)
        let capacity = try XCTUnwrap(status.capacity)
        XCTAssertGreaterThan(capacity.lockedPercent, 90)
        for id in locked {
            let info = try daemon.info(id).recording
            XCTAssertTrue(FileManager.default.fileExists(atPath: info.path), "locked clip \(id) lost")
        }
        XCTAssertTrue(daemon.log.contains("retention: deleted"), daemon.log)
    }

    /// Bad `[recording]` and `[storage]` values stop the daemon at start, naming the key.
    func testBadStorageConfigNamesTheKey() throws {
        for (table, line, key) in [
            ("recording", "segment_s = -1", "segment_s"), ("recording", "segment_s = 0.5", "segment_s"),
            ("storage", "max_locked_percent = 150", "max_locked_percent"),
            ("storage", "on_full = \"delete_everything\"", "on_full"),
            ("storage", "min_free_mb = -5", "min_free_mb"), ("recording", "autostart = \"yes\"", "autostart"),
        ] {
            let daemon = try DaemonProcess(extra: "[\(table)]\n\(line)")
            XCTAssertThrowsError(try daemon.start(timeout: 10), line) { error in
                XCTAssertTrue("\(error)".contains(key), "\(line): \(error)")
            }
        }
    }
}
