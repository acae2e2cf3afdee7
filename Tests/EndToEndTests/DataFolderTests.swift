import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// One daemon per data folder, and what start-up makes of a folder whose storage is missing.
final class DataFolderTests: XCTestCase {
    func testASecondDaemonOnABusyFolderIsRefusedAndTheFirstOnesClipIsWhole() throws {
        let first = try DaemonProcess()
        try first.start()
        defer { first.stop() }
        let started = try first.recordStart()
        let partial = started.partialPath
        try first.waitUntilRecorded(1.0)

        let otherSocket = first.directory.appendingPathComponent("second.sock").path
        let second = try ProcessOutcome.run(
            DaemonProcess.binary, ["run", "--config", first.configPath, "--socket", otherSocket], timeout: 30)
        XCTAssertNotEqual(second.status, 0)
        let lines = second.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 1, second.stderr)
        XCTAssertTrue(
            second.stderr.contains("in use by another appliance daemon (pid \(try XCTUnwrap(first.pid)))"),
            second.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: otherSocket), "the refused daemon served nothing")
        XCTAssertTrue(FileManager.default.fileExists(atPath: partial), "the first daemon's file was not touched")

        try first.waitUntilRecorded(6.0)
        let stop = try first.recordStop()
        let probe = try MediaProbe(stop.path)
        XCTAssertGreaterThan(try XCTUnwrap(probe.video).duration, 5.5, "the whole clip: about 6 s")
        XCTAssertEqual(try probe.decodeErrors(), "")
    }

    func testMissingStorageIsOneConditionAndTheClipsComeBackWithTheirFiles() throws {
        let daemon = try DaemonProcess()
        let rows = 3000
        let seed = try ProcessOutcome.run(
            DaemonProcess.binary, ["dev", "seed", "--data-dir", daemon.dataDir, "--rows", "\(rows)"])
        XCTAssertEqual(seed.status, 0, seed.stderr)
        // The disk that holds the recordings is not mounted: its folder is empty.
        let card = daemon.directory.appendingPathComponent("card").path
        try FileManager.default.moveItem(atPath: daemon.dataDir + "/recordings", toPath: card)

        try daemon.start()
        defer { daemon.stop() }
        // The rows are checked against the files in the background once the daemon is ready.
        XCTAssertTrue(
            try daemon.waitFor(30) { try daemon.status().storage.state == .missing },
            "the reconcile finds the storage missing")
        let status = try daemon.status()
        let storage = status.storage
        XCTAssertEqual(storage.state, .missing)
        XCTAssertEqual(storage.missingFiles, rows)
        XCTAssertEqual(status.recovery?.failed, [])
        let page = try daemon.list(perPage: 1000)
        XCTAssertEqual(page.total, rows)
        XCTAssertEqual(Set(page.items.map(\.state.rawValue)), ["complete"], "rows keep their state")
        let log = daemon.log
        XCTAssertEqual(log.components(separatedBy: "recordings storage missing").count - 1, 1, "one log line: \(log)")
        // A line per clip would be 3,000; GStreamer's own start-up warnings (the filler's converter has logged "not
        // negotiated" once before it linked) are not about the clips.
        let clipLines = log.split(separator: "\n").filter { $0.contains("warning") && !$0.contains("gstreamer:") }
        XCTAssertEqual(clipLines, [], "no line per clip: \(log)")

        // The disk is mounted again: the clips are whole, the condition ends by itself.
        let listener = try EventListener(daemon, timeout: 30)
        try FileManager.default.removeItem(atPath: daemon.dataDir + "/recordings")
        try FileManager.default.moveItem(atPath: card, toPath: daemon.dataDir + "/recordings")
        let available = try listener.waitFor("storage_available")
        XCTAssertEqual(available["state"] as? String, "ok")
        XCTAssertEqual(try daemon.status().storage.state, .ok)
    }
}
