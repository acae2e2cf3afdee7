import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Backup to S3 (`[backup] url = "s3://…"`, issue 50) against two real S3 servers on 127.0.0.1: rclone's
/// (`rclone serve s3`, SigV4 checked) and moto's (keys checked through its IAM). Each runs the same suite: clips
/// whole with thumbnail and sidecar, a clip of several parts, a kill in the middle of it, a deletion, a server
/// outage, refused keys and a missing bucket.
final class S3BackupTests: XCTestCase {
    func testRcloneKeepsTheQueuesPromises() throws { try keepsTheQueuesPromises(.rclone) }
    func testMotoKeepsTheQueuesPromises() throws { try keepsTheQueuesPromises(.moto) }
    func testRcloneOutageLosesAndDoublesNothing() throws { try outageLosesAndDoublesNothing(.rclone) }
    func testMotoOutageLosesAndDoublesNothing() throws { try outageLosesAndDoublesNothing(.moto) }
    func testRcloneRefusedKeysAndAMissingBucketWait() throws { try refusedKeysAndAMissingBucketWait(.rclone) }
    func testMotoRefusedKeysAndAMissingBucketWait() throws { try refusedKeysAndAMissingBucketWait(.moto) }

    private static let mebibyte: Int64 = 1 << 20

    private func makeDaemon(_ server: S3Server, bucket: String? = nil, extra: String = "", secret: String? = nil) throws
        -> DaemonProcess
    {
        let daemon = try DaemonProcess()
        try daemon.appendConfig(
            try server.backupConfig(in: daemon.directory, bucket: bucket, extra: extra, secret: secret))
        return daemon
    }

    /// The server's object for recording `id` with `suffix` (".mp4", ".jpg", ".json").
    private func object(_ objects: [String: (size: Int64, sha256: String)], _ id: String, _ suffix: String) -> (
        key: String, size: Int64, sha256: String
    )? {
        objects.first { $0.key.hasSuffix("_\(id)\(suffix)") }.map { ($0.key, $0.value.size, $0.value.sha256) }
    }

    private func assertArrivedWhole(
        _ server: S3Server, id: String, path: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let objects = try server.objects()
        let media = try XCTUnwrap(object(objects, id, ".mp4"), "\(objects.keys.sorted())", file: file, line: line)
        XCTAssertEqual(media.size, try XCTUnwrap(DataDirectorySize.of(path)), "same size", file: file, line: line)
        XCTAssertEqual(media.sha256, try fileSHA256(path), "same bytes", file: file, line: line)
        XCTAssertTrue(
            media.key.hasPrefix("fleet/") && !media.key.contains("{device}"),
            "the prefix with the device's name: \(media.key)", file: file, line: line)
        XCTAssertNotNil(object(objects, id, ".json"), "the sidecar", file: file, line: line)
        XCTAssertEqual(
            objects.keys.filter { $0.hasSuffix("_\(id).mp4") }.count, 1, "arrived once", file: file, line: line)
    }

    /// Clips whole with thumbnail and sidecar; a 17 MB clip in 5 MiB parts, the daemon killed after its first
    /// part and restarted: it asks the server which parts it has and sends only the rest; a deleted clip's objects go.
    private func keepsTheQueuesPromises(_ kind: S3Server.Kind) throws {
        let server = try S3Server(kind)
        try server.start()
        // 5 MB/s: the big clip takes a few seconds
        let daemon = try makeDaemon(server, extra: "bandwidth_kbps = 40000")
        let bigId = "10000000-2000-4000-8000-0000000000b1"
        let big = try daemon.placeClipForRecovery(id: bigId, padding: 16 << 20)
        try daemon.start()
        let clip = try daemon.recordClip(title: "Garden, dusk 🌆")
        try daemon.showingLogOnFailure(in: self) {
            // Parts are saved as the server confirms them: past 7 MiB the first is.
            XCTAssertTrue(
                try daemon.waitFor(30) {
                    let current = try daemon.backupStatus().current
                    return current?.id == bigId && current?.bytesDone ?? 0 > 7 * Self.mebibyte
                })
        }
        daemon.stop(signal: SIGKILL)
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertTrue(try daemon.waitFor(60) { try daemon.backupCounts().done == 2 })
            let resumed = try XCTUnwrap(
                daemon.log.split(separator: "\n").first { $0.contains("resuming the upload of") && $0.contains(bigId) })
            XCTAssertNotNil(resumed.firstMatch(of: #/: [1-3] of 4 parts already on the server/#), "\(resumed)")
            print("\(kind): \(resumed)")
            for line in daemon.log.split(separator: "\n") where line.contains("cannot go on with the upload") {
                print("\(kind): \(line)")
            }
            try assertArrivedWhole(server, id: bigId, path: big)
            try assertArrivedWhole(server, id: clip.id, path: clip.path)
            XCTAssertNotNil(object(try server.objects(), clip.id, ".jpg"), "the thumbnail")
            XCTAssertEqual(try server.openUploads(), [], "no multipart upload left open")
            XCTAssertEqual(try daemon.info(bigId).recording.backupState, .done)

            _ = try daemon.delete(clip.id)
            XCTAssertTrue(
                try daemon.waitFor(20) { try server.objects().keys.allSatisfy { !$0.contains(clip.id) } },
                "a deleted clip's objects go")
            XCTAssertNotNil(object(try server.objects(), bigId, ".mp4"), "and only its")
            XCTAssertFalse(daemon.log.contains(server.secretKey), "the secret is never logged")
        }
        let doctor = try ProcessOutcome.run(
            DaemonProcess.binary, ["doctor", "--config", daemon.configPath], timeout: 180)
        let line =
            doctor.stdout.split(separator: "\n").first { $0.contains("backup: ") }.map(String.init) ?? doctor.stdout
        XCTAssertTrue(
            line.hasPrefix("PASS  backup: bucket backup at \(server.endpoint)") && line.contains("written and deleted"),
            line)
    }

    /// The server dies in the middle of a multipart upload and comes back (moto empty, its bucket made again a moment
    /// after it answers: the queue may pause on the missing bucket and goes on once it is there; the upload starts
    /// again; rclone with its files): the clip arrives once, whole.
    private func outageLosesAndDoublesNothing(_ kind: S3Server.Kind) throws {
        let server = try S3Server(kind, auth: kind == .rclone)  // moto's keys would not survive its restart
        try server.start()
        let daemon = try makeDaemon(server, extra: "bandwidth_kbps = 24000")
        let id = "10000000-2000-4000-8000-0000000000c1"
        let path = try daemon.placeClipForRecovery(id: id, padding: 11 << 20)
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertTrue(try daemon.waitFor(30) { try daemon.backupStatus().current?.bytesDone ?? 0 > Self.mebibyte })
            server.stop()
            XCTAssertTrue(try daemon.waitFor(20) { try daemon.backupStatus().lastError != nil })
            XCTAssertTrue(
                try daemon.waitFor(10) { try daemon.backupStatus().nextRetryAt != nil },
                "a retry is scheduled while the server is down")
            XCTAssertEqual(try daemon.info(id).recording.backupState, .pending)
            try server.start()
            XCTAssertTrue(try daemon.waitFor(60) { try daemon.backupCounts().done == 1 })
            try assertArrivedWhole(server, id: id, path: path)
            XCTAssertEqual(try server.openUploads(), [], "no multipart upload left open")
        }
    }

    /// A wrong secret pauses the queue with one line naming it; the corrected secret file resumes it by itself. A
    /// bucket that does not exist pauses it too, until it is made. Nothing is dropped.
    private func refusedKeysAndAMissingBucketWait(_ kind: S3Server.Kind) throws {
        let server = try S3Server(kind)
        try server.start()
        let daemon = try makeDaemon(server, secret: "not-the-secret")
        try daemon.start()
        try daemon.showingLogOnFailure(in: self) {
            let clip = try daemon.recordClip()
            XCTAssertTrue(try daemon.waitFor(20) { try daemon.backupStatus().paused })
            let reason = try XCTUnwrap(daemon.backupStatus().pauseReason)
            XCTAssertTrue(
                reason.contains("refused the credentials") && reason.contains("SignatureDoesNotMatch"), reason)
            let shown = try daemon.ctl(["backup", "status"])
            XCTAssertTrue(shown.stdout.contains(reason), shown.stdout)
            let doctor = try ProcessOutcome.run(
                DaemonProcess.binary, ["doctor", "--config", daemon.configPath], timeout: 180)
            XCTAssertTrue(doctor.stdout.contains("FAIL  backup: ") && doctor.stdout.contains("refused"), doctor.stdout)
            XCTAssertNotEqual(doctor.status, 0)
            XCTAssertEqual(try daemon.backupCounts().done, 0)
            try server.secretKey.write(
                toFile: daemon.directory.appendingPathComponent("s3-secret").path, atomically: true, encoding: .utf8)
            chmod(daemon.directory.appendingPathComponent("s3-secret").path, 0o600)
            XCTAssertTrue(
                try daemon.waitFor(30) { try daemon.backupCounts().done == 1 },
                "the corrected secret file resumes the queue")
            try assertArrivedWhole(server, id: clip.id, path: clip.path)
        }
        daemon.stop()

        let missing = try makeDaemon(server, bucket: "not-made-yet")
        try missing.start()
        defer { missing.stop() }
        try missing.showingLogOnFailure(in: self) {
            let clip = try missing.recordClip()
            XCTAssertTrue(try missing.waitFor(20) { try missing.backupStatus().paused })
            let reason = try XCTUnwrap(missing.backupStatus().pauseReason)
            XCTAssertTrue(reason.contains("bucket does not exist"), reason)
            try server.createBucket("not-made-yet")
            XCTAssertTrue(
                try missing.waitFor(30) { try missing.backupCounts().done == 1 },
                "the bucket, once made, resumes the queue")
            XCTAssertEqual(try missing.info(clip.id).recording.backupState, .done)
        }
    }
}

enum DataDirectorySize {
    static func of(_ path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value
    }
}
