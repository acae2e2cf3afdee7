import ApplianceProtocol
import Foundation
import XCTest

/// Start-up recovery brings rows and files back into agreement and never deletes media.
final class RecoveryTests: XCTestCase {
    func testPartialFileMissingFileAndOrphanFileAreReconciled() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        var ids: [String] = []
        for _ in 0..<2 {
            _ = try daemon.recordStart()
            try daemon.waitUntilRecorded(0.6)
            ids.append(try daemon.recordStop().id)
        }
        let kept = try daemon.info(ids[1]).recording.path
        let removed = try daemon.info(ids[0]).recording.path
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
        let list = try daemon.list()
        XCTAssertEqual(list.total, 5)
        let byID = Dictionary(uniqueKeysWithValues: list.items.map { ($0.id, $0) })

        XCTAssertEqual(byID[ids[0]]?.state, .failed)
        XCTAssertTrue((byID[ids[0]]?.failureReason ?? "").contains("missing"), "\(String(describing: byID[ids[0]]))")
        XCTAssertEqual(byID[ids[1]]?.state, .complete)

        let orphan = try XCTUnwrap(byID[orphanID])
        XCTAssertEqual(orphan.state, .recovered)
        XCTAssertEqual(orphan.videoCodec, "h264")
        XCTAssertEqual(orphan.audioCodec, "aac")
        XCTAssertGreaterThan(orphan.durationMs ?? 0, 400)
        XCTAssertTrue(FileManager.default.fileExists(atPath: orphan.thumbnail ?? ""))

        let partial = try XCTUnwrap(byID[partialID])
        XCTAssertEqual(partial.state, .recovered)
        XCTAssertTrue(partial.path.contains("/recordings/"), "moved out of partial/")
        XCTAssertTrue(FileManager.default.fileExists(atPath: partial.path))
        XCTAssertEqual(daemon.partialFiles(), [])
        XCTAssertEqual(partial.width, 1280)

        // The undecodable file is adopted as failed, and kept.
        let junkRow = try XCTUnwrap(byID.values.first { $0.path == junk })
        XCTAssertEqual(junkRow.state, .failed)
        XCTAssertTrue(FileManager.default.fileExists(atPath: junk), "recovery never deletes media")

        let status = try daemon.status()
        let recovery = try XCTUnwrap(status.recovery)
        XCTAssertEqual(
            recovery.failed, [ids[0]],
            "\(byID.mapValues { "\($0.state.rawValue) \($0.path) \($0.failureReason ?? "")" })")
        XCTAssertEqual(recovery.recovered, [partialID])
        XCTAssertEqual(Set(recovery.adopted).count, 2)

        // A second start finds nothing to do, and a failed row whose file comes back is recovered.
        daemon.stop()
        try FileManager.default.copyItem(atPath: kept, toPath: removed)
        try daemon.start()
        let again = try XCTUnwrap(try daemon.status().recovery)
        XCTAssertEqual(again.recovered, [ids[0]])
        XCTAssertEqual(again.failed, [])
        XCTAssertEqual(again.adopted, [])
        XCTAssertEqual(try daemon.info(ids[0]).recording.state, .recovered)
    }

    func testKilledRecordingRowBecomesRecovered() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let id = try daemon.recordStart(title: "cut short").id
        XCTAssertEqual(try daemon.info(id).recording.state, .recording)
        try daemon.waitUntilRecorded(2.5)
        daemon.stop(signal: SIGKILL)
        try daemon.start()
        defer { daemon.stop() }
        let info = try daemon.info(id).recording
        XCTAssertEqual(info.state, .recovered)
        XCTAssertEqual(info.title, "cut short", "the row written at start keeps its title")
        XCTAssertGreaterThan(info.durationMs ?? 0, 1000)
        XCTAssertTrue(info.path.contains("/recordings/"))
        XCTAssertNotNil(info.thumbnail)
    }
}
