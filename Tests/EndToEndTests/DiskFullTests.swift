import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// ENOSPC while recording, on a real (small) filesystem: a tmpfs mounted on the data folder in the daemon's own
/// mount namespace. The test reaches the files through /proc/<pid>/root.
final class DiskFullTests: XCTestCase {
    /// A daemon whose data folder is a 16 MB tmpfs in its own mount namespace, recording noise (which does not
    /// compress: 4 Mbit/s).
    private func daemonOnASmallCard(segmentS: Double) throws -> DaemonProcess {
        guard (try? ProcessOutcome.run("/usr/bin/unshare", ["-m", "true"]))?.status == 0 else {
            throw XCTSkip("no private mount namespace here (unshare -m needs root or user namespaces)")
        }
        let daemon = try DaemonProcess(
            extra: """
                [video]
                width = 320
                height = 240
                framerate = 30
                bitrate_kbps = 4000
                [recording]
                segment_s = \(segmentS)
                [storage]
                min_free_mb = 0
                """,
            cameras:
                """
                [[camera]]\nname = \"main\"\nsource = \"pipeline\"\npipeline = \"videotestsrc is-live=true \
                pattern=snow\"
                """
        )
        try FileManager.default.createDirectory(atPath: daemon.dataDir, withIntermediateDirectories: true)
        daemon.launcher = [
            "/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
            "mount -t tmpfs -o size=16m tmpfs '\(daemon.dataDir)' && exec \"$0\" \"$@\"",
        ]
        try daemon.start()
        return daemon
    }

    /// Fills the card with a file of its own, leaving `room` bytes.
    private func fill(_ path: String, leaving room: UInt64) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        let chunk = Data(count: 256 * 1024)
        while (try? handle.write(contentsOf: chunk)) != nil {}
        let size = try handle.seekToEnd()
        try handle.truncate(atOffset: size > room ? size - room : 0)
        try handle.close()
    }

    /// The card is full before the recording's first video fragment: nothing of the picture is written whole, so
    /// no file is left and its row says "nothing recorded" and why (here retention finds nothing to delete and the
    /// recording stops as storage full); the daemon and its camera go on, and record again once there is room.
    func testACardFullBeforeTheFirstFragmentLeavesARowThatSaysSo() throws {
        let daemon = try daemonOnASmallCard(segmentS: 0)
        defer { daemon.stop() }
        let root = "/proc/\(try XCTUnwrap(daemon.pid))/root"
        let ballast = root + daemon.dataDir + "/ballast"
        // Room for the file's start, its first audio fragment and the database; not for a video fragment (0.5 MB).
        try fill(ballast, leaving: 300_000)
        let first = try daemon.recordStart()
        XCTAssertTrue(try daemon.waitFor(30) { try daemon.info(first.id).recording.state == .failed }, "the row fails")
        let row = try daemon.info(first.id).recording
        XCTAssertTrue(
            (row.failureReason ?? "").hasPrefix("nothing recorded: no video fragment of the file was written whole"),
            "\(row)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + row.path), "no file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + daemon.dataDir + "/partial/\(first.id).mp4"))

        try FileManager.default.removeItem(atPath: ballast)
        XCTAssertTrue(try daemon.waitFor(30) { try daemon.status().state == .idle })
        _ = try daemon.recordStart()
        try daemon.waitUntilRecorded(1.5)
        let last = try daemon.recordStop()
        XCTAssertEqual(try MediaProbe(root + last.path).decodeErrors(), "")
        XCTAssertEqual(try daemon.status().activeCamera, "main", "the camera kept running")
    }

    func testAFullDiskEndsTheFileCleanlyAndRecordingResumes() throws {
        // The card fills 1.5 s into the second 3 s segment: its first fragment (1 s) is on it, the next one meets
        // the full disk.
        let daemon = try daemonOnASmallCard(segmentS: 3.0)
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) { try fullDiskWhileRecording(daemon) }
    }

    private func fullDiskWhileRecording(_ daemon: DaemonProcess) throws {
        let root = "/proc/\(try XCTUnwrap(daemon.pid))/root"
        let events = try EventListener(daemon, timeout: 60)
        _ = try daemon.recordStart()
        try daemon.waitUntilElapsed(4.5)

        // Something else fills the card.
        let ballast = root + daemon.dataDir + "/ballast"
        try fill(ballast, leaving: 0)

        var deleted = 0
        var stopped: [String: Any]?
        while stopped == nil {
            let event = try events.next()
            if event.name == "retention_deleted" { deleted += 1 }
            if event.name == "recording_stopped" { stopped = event.data }
        }
        XCTAssertEqual(stopped?["stop_reason"] as? String, "write_failed")
        XCTAssertGreaterThan(deleted, 0, "retention made room")
        let id = try XCTUnwrap(stopped?["id"] as? String)
        let path = try XCTUnwrap(stopped?["path"] as? String)
        let probe = try MediaProbe(root + path)
        XCTAssertEqual(try probe.decodeErrors(), "", "the file that met the full disk plays")
        XCTAssertGreaterThan(try XCTUnwrap(probe.video).frames, 0)
        let info = try daemon.info(id).recording
        XCTAssertEqual(info.state, .complete)
        XCTAssertTrue((info.note ?? "").contains("could not be written"), "\(info)")

        // Recording resumes in a new file by itself.
        let resumed = try events.waitFor("recording_started")
        XCTAssertNotEqual(resumed["id"] as? String, id)
        let status = try daemon.status()
        XCTAssertEqual(status.state, .recording)
        XCTAssertEqual(status.activeCamera, "main", "the camera kept running (a write error once stopped it)")
        try FileManager.default.removeItem(atPath: ballast)
        let last = try daemon.recordStop()
        XCTAssertEqual(try MediaProbe(root + last.path).decodeErrors(), "")

        // Never a 0-byte file.
        let recordings = root + daemon.dataDir + "/recordings"
        let files = (FileManager.default.enumerator(atPath: recordings)?.allObjects as? [String] ?? []).filter {
            $0.hasSuffix(".mp4")
        }
        XCTAssertFalse(files.isEmpty)
        for file in files {
            XCTAssertGreaterThan(DataSize.of(recordings + "/" + file), 0, file)
        }
    }
}

enum DataSize {
    static func of(_ path: String) -> Int64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? -1
    }
}

/// The storage under the data folder goes away while recording (unmounted) and comes back: a real ext4
/// filesystem on a loop device, mounted in the daemon's own mount namespace and unmounted there with nsenter.
final class StorageGoneTests: XCTestCase {
    private func run(_ tool: String, _ arguments: [String]) throws -> ProcessOutcome {
        let result = try ProcessOutcome.run(tool, arguments)
        guard result.status == 0 else {
            throw DaemonError(message: "\(tool) \(arguments.joined(separator: " ")): \(result.stderr)")
        }
        return result
    }

    func testStorageThatGoesAwayIsReportedAndRecordingResumesWhenItIsBack() throws {
        guard (try? ProcessOutcome.run("/usr/bin/unshare", ["-m", "true"]))?.status == 0,
            FileManager.default.isExecutableFile(atPath: "/usr/sbin/losetup")
        else {
            throw XCTSkip("needs a private mount namespace and loop devices (root)")
        }
        let daemon = try DaemonProcess(extra: "[recording]\nsegment_s = 2.0\n[storage]\nmin_free_mb = 0")
        let image = daemon.directory.appendingPathComponent("card.img").path
        _ = FileManager.default.createFile(atPath: image, contents: nil)
        try FileHandle(forWritingAtPath: image)!.truncate(atOffset: 64 << 20)
        _ = try run("/usr/sbin/mkfs.ext4", ["-q", "-F", image])
        guard let attach = try? run("/usr/sbin/losetup", ["--find", "--show", image]) else {
            throw XCTSkip("no free loop device")
        }
        let loop = attach.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        defer { _ = try? ProcessOutcome.run("/usr/sbin/losetup", ["-d", loop]) }
        try FileManager.default.createDirectory(atPath: daemon.dataDir, withIntermediateDirectories: true)
        daemon.launcher = [
            "/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
            "mount \(loop) '\(daemon.dataDir)' && exec \"$0\" \"$@\"",
        ]
        try daemon.start()
        defer { daemon.stop() }
        let pid = String(try XCTUnwrap(daemon.pid))
        let events = try EventListener(daemon, timeout: 30)
        let first = try daemon.recordStart()
        try daemon.waitUntilElapsed(3)

        // The card goes away.
        _ = try run("/usr/bin/nsenter", ["-t", pid, "-m", "umount", "-l", daemon.dataDir])
        let missing = try events.waitFor("storage_missing")
        XCTAssertEqual(missing["state"] as? String, "missing")
        XCTAssertTrue(try daemon.waitFor(5) { try daemon.status().state == .idle })
        XCTAssertEqual(try daemon.status().storage.state, .missing)
        XCTAssertThrowsError(try daemon.recordStart(), "record.start is refused") { refused in
            XCTAssertEqual((refused as? ApplianceError)?.code.rawValue, "unavailable", "\(refused)")
        }
        Thread.sleep(forTimeInterval: 1)  // the subject: nothing gets written to the bare mount point meanwhile
        let mountPoint =
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/root\(daemon.dataDir)")) ?? []
        XCTAssertEqual(mountPoint, [], "nothing is written to the bare mount point")

        // It comes back: the interrupted file is recovered and recording resumes.
        _ = try run("/usr/bin/nsenter", ["-t", pid, "-m", "mount", loop, daemon.dataDir])
        _ = try events.waitFor("storage_available")
        let resumed = try events.waitFor("recording_started")
        XCTAssertNotEqual(resumed["id"] as? String, first.id)
        let status = try daemon.status()
        XCTAssertEqual(status.state, .recording)
        XCTAssertEqual(status.storage.state, .ok)
        _ = try daemon.recordStop()
        let items = try daemon.list(perPage: 100).items
        XCTAssertFalse(items.contains { $0.state == .recording }, "no row left mid-recording: \(items)")
        for item in items where item.state != .failed {
            let path = "/proc/\(pid)/root" + item.path
            XCTAssertGreaterThan(DataSize.of(path), 0, "\(item)")
            XCTAssertEqual(try MediaProbe(path).decodeErrors(), "", "\(item)")
        }
    }
}
