import Foundation
import XCTest

/// Start-up recovery brings rows and files back into agreement and never deletes media.
final class RecoveryTests: XCTestCase {
    func testPartialFileMissingFileAndOrphanFileAreReconciled() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        var ids: [String] = []
        for _ in 0..<2 {
            _ = try daemon.result("record.start")
            Thread.sleep(forTimeInterval: 0.6)
            ids.append(try XCTUnwrap(try daemon.result("record.stop")["id"] as? String))
        }
        let kept = try XCTUnwrap(try daemon.result("info", args: ["id": ids[1]])["path"] as? String)
        let removed = try XCTUnwrap(try daemon.result("info", args: ["id": ids[0]])["path"] as? String)
        daemon.stop()

        // 1. A file removed by hand. 2. A file without a row. 3. A leftover partial file without a row.
        try FileManager.default.removeItem(atPath: removed)
        let orphanID = "0f0f0f0f-1111-4222-8333-444455556666"
        let orphanFolder = daemon.dataDir + "/recordings/2025/12/31"
        try FileManager.default.createDirectory(atPath: orphanFolder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: kept, toPath: "\(orphanFolder)/\(orphanID).mp4")
        let partialID = "1e1e1e1e-1111-4222-8333-444455556666"
        try FileManager.default.copyItem(atPath: kept, toPath: daemon.dataDir + "/partial/\(partialID).mp4")
        let junk = daemon.dataDir + "/recordings/2025/12/31/not-a-video.mp4"
        try Data("this is not an mp4".utf8).write(to: URL(fileURLWithPath: junk))

        try daemon.start()
        defer { daemon.stop() }
        let list = try daemon.result("list")
        XCTAssertEqual(list["total"] as? Int, 5)
        let byID = Dictionary(uniqueKeysWithValues: (list["items"] as? [[String: Any]] ?? []).map { ($0["id"] as? String ?? "", $0) })

        XCTAssertEqual(byID[ids[0]]?["state"] as? String, "failed")
        XCTAssertTrue((byID[ids[0]]?["failure_reason"] as? String ?? "").contains("missing"), "\(byID[ids[0]] ?? [:])")
        XCTAssertEqual(byID[ids[1]]?["state"] as? String, "complete")

        let orphan = try XCTUnwrap(byID[orphanID])
        XCTAssertEqual(orphan["state"] as? String, "recovered")
        XCTAssertEqual(orphan["video_codec"] as? String, "h264")
        XCTAssertEqual(orphan["audio_codec"] as? String, "aac")
        XCTAssertGreaterThan(orphan["duration_ms"] as? Int ?? 0, 400)
        XCTAssertTrue(FileManager.default.fileExists(atPath: orphan["thumbnail"] as? String ?? ""))

        let partial = try XCTUnwrap(byID[partialID])
        XCTAssertEqual(partial["state"] as? String, "recovered")
        XCTAssertTrue((partial["path"] as? String ?? "").contains("/recordings/"), "moved out of partial/")
        XCTAssertTrue(FileManager.default.fileExists(atPath: partial["path"] as? String ?? ""))
        XCTAssertEqual(daemon.partialFiles(), [])
        XCTAssertEqual(partial["width"] as? Int, 1280)

        // The undecodable file is adopted as failed, and kept.
        let junkRow = try XCTUnwrap(byID.values.first { $0["path"] as? String == junk })
        XCTAssertEqual(junkRow["state"] as? String, "failed")
        XCTAssertTrue(FileManager.default.fileExists(atPath: junk), "recovery never deletes media")

        let status = try daemon.result("status")
        let recovery = try XCTUnwrap(status["recovery"] as? [String: Any])
        XCTAssertEqual(recovery["failed"] as? [String], [ids[0]], "\(byID.mapValues { "\($0["state"] ?? "") \($0["path"] ?? "") \($0["failure_reason"] ?? "")" })")
        XCTAssertEqual(recovery["recovered"] as? [String], [partialID])
        XCTAssertEqual(Set(recovery["adopted"] as? [String] ?? []).count, 2)

        // A second start finds nothing to do, and a failed row whose file comes back is recovered.
        daemon.stop()
        try FileManager.default.copyItem(atPath: kept, toPath: removed)
        try daemon.start()
        let again = try XCTUnwrap(try daemon.result("status")["recovery"] as? [String: Any])
        XCTAssertEqual(again["recovered"] as? [String], [ids[0]])
        XCTAssertEqual(again["failed"] as? [String], [])
        XCTAssertEqual(again["adopted"] as? [String], [])
        XCTAssertEqual(try daemon.result("info", args: ["id": ids[0]])["state"] as? String, "recovered")
    }

    func testKilledRecordingRowBecomesRecovered() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let id = try XCTUnwrap(try daemon.result("record.start", args: ["title": "cut short"])["id"] as? String)
        XCTAssertEqual(try daemon.result("info", args: ["id": id])["state"] as? String, "recording")
        Thread.sleep(forTimeInterval: 2.5)
        daemon.stop(signal: SIGKILL)
        try daemon.start()
        defer { daemon.stop() }
        let info = try daemon.result("info", args: ["id": id])
        XCTAssertEqual(info["state"] as? String, "recovered")
        XCTAssertEqual(info["title"] as? String, "cut short", "the row written at start keeps its title")
        XCTAssertGreaterThan(info["duration_ms"] as? Int ?? 0, 1000)
        XCTAssertTrue((info["path"] as? String ?? "").contains("/recordings/"))
        XCTAssertNotNil(info["thumbnail"] as? String)
    }
}
