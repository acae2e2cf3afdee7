import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// IP cameras (issue 48): `source = "rtsp"` against an RTSP server independent of the appliance (gst-rtsp-server from
/// Python, H.264 + AAC, Digest password), recording its picture; a wrong password, an outage and a camera that never
/// answers each fail with one clear line, come back by themselves, and never hold up a stop.
final class NetworkCameraTests: XCTestCase {
    private let small = "[video]\nwidth = 320\nheight = 240\nframerate = 10\n"
    private let password = "d00r-Päss word"

    /// An `rtsp` camera's config, its password in a 0600 file next to the daemon's config.
    private func networkCamera(_ url: String, passwordFile: String, startTimeout: Double = 10) -> String {
        """
        [[camera]]
        name = "door"
        source = "rtsp"
        url = "\(url)"
        username = "viewer"
        password_file = "\(passwordFile)"
        start_timeout_s = \(startTimeout)
        """
    }

    private func writePassword(_ text: String, to path: String) throws {
        try (text + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        chmod(path, 0o600)
    }

    func testAnIPCameraWithSoundAndAPasswordRecordsItsPicture() throws {
        let server = try RTSPCameraServer(user: "viewer", password: password)
        try server.start()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "door-\(UUID().uuidString.prefix(8)).password"
        ).path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try writePassword(password, to: file)
        let daemon = try DaemonProcess(extra: small, cameras: networkCamera(server.url, passwordFile: file))
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertTrue(try daemon.waitForCamera("door", "active"))
            let camera = try XCTUnwrap(daemon.camera("door"))
            XCTAssertEqual(camera.source, "rtsp")
            XCTAssertEqual(camera.device, server.url)
            XCTAssertEqual(camera.mode, "H264 320x240@10", "the stream as it comes")
            XCTAssertEqual(
                camera.modeReason?.hasPrefix("stored as sent"), true, "the channel's only camera: its H.264 as sent")
            XCTAssertEqual(
                camera.modeReason?.hasSuffix(", sound AAC dropped"), true,
                "its sound is not the recording's unless [audio] source = \"camera\"")
            let clip = try daemon.recordDecodable(seconds: 3)
            XCTAssertGreaterThan(try ClipPicture.grayLevels(clip, at: 1.5), 20, "the camera's picture, not the filler")
            let listed = try daemon.ctl(["cameras"])
            XCTAssertEqual(listed.status, 0)
            XCTAssertTrue(listed.stdout.contains(server.url), listed.stdout)
            for text in [daemon.log, listed.stdout, try daemon.ctl(["status"]).stdout] {
                XCTAssertFalse(text.contains(password), "the password is shown nowhere")
            }
        }
    }

    func testAWrongPasswordIsOneClearLineAndTheRightOneIsTakenAtTheNextTry() throws {
        let server = try RTSPCameraServer(user: "viewer", password: password)
        try server.start()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "door-\(UUID().uuidString.prefix(8)).password"
        ).path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try writePassword("not it", to: file)
        let daemon = try DaemonProcess(extra: small, cameras: networkCamera(server.url, passwordFile: file))
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertTrue(try daemon.waitForCamera("door", "error"))
            let detail = try XCTUnwrap(daemon.camera("door")?.detail)
            XCTAssertTrue(detail.contains("refused the user name or password"), detail)
            XCTAssertTrue(
                daemon.log.contains("camera 'door' failed to start: the camera refused the user name or password"),
                daemon.log)
            XCTAssertTrue(try daemon.status().ready, "the daemon runs on the filler")
            try writePassword(password, to: file)
            XCTAssertTrue(
                try daemon.waitForCamera("door", "active", timeout: 40),
                "retried with backoff, with the password file read again")
        }
    }

    func testTheCameraComesBackAfterAnOutageAndARecordingAcrossItDecodes() throws {
        let server = try RTSPCameraServer()
        try server.start()
        let daemon = try DaemonProcess(
            extra: small, cameras: "[[camera]]\nname = \"door\"\nsource = \"rtsp\"\nurl = \"\(server.url)\"\n")
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertTrue(try daemon.waitForCamera("door", "active"))
            _ = try daemon.recordStart()
            try daemon.waitForMoreVideo(2)
            server.stop()
            XCTAssertTrue(try daemon.waitForCamera("door", "error"), "the drop is noticed")
            Thread.sleep(forTimeInterval: 6)  // the outage itself: the camera is off the network for 6 s
            try server.start()
            let back = Date()
            XCTAssertTrue(
                try daemon.waitForCamera("door", "active", timeout: 15), "active again within 15 s of its return")
            print(
                """
                NetworkCameraTests: active again \(String(format: "%.1f", Date().timeIntervalSince(back))) s after \
                the camera's return
                """
            )
            try daemon.waitForMoreVideo(2)
            let clip = try daemon.recordStop()
            try ClipPicture.assertDecodes(clip.path)
            XCTAssertGreaterThan(clip.durationMs, 9_000, "one clip across the outage")
            XCTAssertEqual(try daemon.status().recording, nil)

            server.stop()
            XCTAssertTrue(try daemon.waitForCamera("door", "error"))
            let asked = Date()
            XCTAssertEqual(daemon.stop(), 0)
            XCTAssertLessThan(
                Date().timeIntervalSince(asked), 10, "SIGTERM stops the daemon within 10 s while the camera is gone")
        }
    }

    func testTheNextCameraCoversAnOutageAndTheIPCameraIsTakenBack() throws {
        let server = try RTSPCameraServer()
        try server.start()
        let cameras =
            "[[camera]]\nname = \"door\"\nsource = \"rtsp\"\nurl = \"\(server.url)\"\n"
            + "[[camera]]\nname = \"yard\"\nsource = \"test\"\npattern = \"ball\"\n"
        let daemon = try DaemonProcess(extra: small, cameras: cameras)
        try daemon.start()
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertTrue(try daemon.waitForCamera("door", "active"))
            _ = try daemon.recordStart()
            try daemon.waitForMoreVideo(1)
            server.stop()
            XCTAssertTrue(try daemon.waitForCamera("yard", "active"), "the next camera covers the outage")
            try daemon.waitForMoreVideo(2)
            try server.start()
            let back = Date()
            XCTAssertTrue(
                try daemon.waitForCamera("door", "active", timeout: 15), "the IP camera is taken back when it returns")
            print(
                """
                NetworkCameraTests: taken back \(String(format: "%.1f", Date().timeIntervalSince(back))) s after \
                the camera's return
                """
            )
            XCTAssertEqual(try daemon.camera("yard")?.state, "standby")
            try daemon.waitForMoreVideo(1)
            try ClipPicture.assertDecodes(try daemon.recordStop().path)
            XCTAssertFalse(daemon.log.contains("no camera is working"), "the filler was never needed")
        }
    }

    func testACameraThatNeverAnswersFailsAtItsTimeoutAndNeverHoldsUpAStop() throws {
        let silent = try SilentListener()
        let daemon = try DaemonProcess(
            extra: small,
            cameras:
                """
                [[camera]]\nname = \"door\"\nsource = \"rtsp\"\nurl = \
                \"rtsp://127.0.0.1:\(silent.port)/live\"\nstart_timeout_s = 2\n
                """
        )
        try daemon.start()
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertTrue(try daemon.waitForCamera("door", "error"))
            let detail = try XCTUnwrap(daemon.camera("door")?.detail)
            XCTAssertTrue(detail.contains("does not answer") || detail.contains("no frame within"), detail)
            XCTAssertTrue(try daemon.waitForCamera("door", "starting", timeout: 10), "tried again")
            let asked = Date()
            XCTAssertEqual(daemon.stop(), 0)
            XCTAssertLessThan(
                Date().timeIntervalSince(asked), 10, "a start waiting on the camera does not hold up SIGTERM")
        }
    }
}

extension NetworkCameraTests {
    /// `appliance doctor` connects as the daemon would and names what failed, for each way a camera goes wrong.
    func testDoctorReadsAFrameOrNamesWhatFailed() throws {
        let server = try RTSPCameraServer(user: "viewer", password: password)
        try server.start()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "doctor-rtsp-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let right = folder + "/right"
        let wrong = folder + "/wrong"
        try writePassword(password, to: right)
        try writePassword("not it", to: wrong)
        let closed = FreePort.pick()
        let cases: [(url: String, file: String, says: String)] = [
            (server.url, right, "PASS  camera door: \(server.url): H264 320x240@10, decoded by "),
            (server.url, wrong, "FAIL  camera door: \(server.url): the camera refused the user name or password"),
            ("rtsp://127.0.0.1:\(server.port)/elsewhere", right, "the camera has no stream at that path"),
            ("rtsp://127.0.0.1:\(closed)/live", right, "cannot connect to the camera"),
            ("rtsp://no-such-camera.invalid/live", right, "cannot resolve the camera's host 'no-such-camera.invalid'"),
        ]
        for (index, test) in cases.enumerated() {
            let config = folder + "/\(index).toml"
            try DaemonProcess.config(
                dataDir: folder + "/data\(index)", cameras: networkCamera(test.url, passwordFile: test.file)
            )
            .write(toFile: config, atomically: true, encoding: .utf8)
            let outcome = try ProcessOutcome.run(DaemonProcess.binary, ["doctor", "--config", config], timeout: 120)
            let line = outcome.stdout.split(separator: "\n").first { $0.contains("camera door") }.map(String.init) ?? ""
            XCTAssertTrue(line.contains(test.says), "\(test.url): \(line)")
            XCTAssertEqual(
                outcome.status == 0, test.says.hasPrefix("PASS"),
                "exit status \(outcome.status) for \(test.url): \(outcome.stdout)")
            XCTAssertFalse(outcome.stdout.contains(password))
        }
    }
}

/// A TCP port that takes connections (the kernel completes them) and never says a word: a camera that hangs.
private final class SilentListener {
    let port: Int
    private let fd: Int32

    init() throws {
        guard let (fd, port) = FreePort.bindLoopback(), listen(fd, 16) == 0 else {
            throw DaemonError(message: "cannot listen: errno \(errno)")
        }
        (self.fd, self.port) = (fd, port)
    }

    deinit { close(fd) }
}
