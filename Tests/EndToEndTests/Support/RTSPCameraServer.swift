import Foundation
import TestSupport
import XCTest

/// An IP camera for the tests, independent of the appliance: gst-rtsp-server from Python
/// (Tests/RTSPCamera/rtsp_camera.py) serving H.264 video and AAC sound at rtsp://127.0.0.1:PORT/live, behind a
/// user name and password (Digest) when given. It can be stopped and started again on the same port (an outage).
final class RTSPCameraServer {
    let port: Int
    let user: String?
    let password: String?
    let pattern: String
    /// More arguments for rtsp_camera.py (`--tone 880`, `--file clip.mp4`).
    let options: [String]
    private var process: Process?
    private let folder: String

    var url: String { "rtsp://127.0.0.1:\(port)/live" }

    init(user: String? = nil, password: String? = nil, pattern: String = "smpte", options: [String] = []) throws {
        (self.user, self.password, self.pattern, self.options) = (user, password, pattern, options)
        port = FreePort.pick()
        folder =
            FileManager.default.temporaryDirectory.appendingPathComponent("rtsp-camera-\(UUID().uuidString.prefix(8))")
            .path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("RTSPCamera/rtsp_camera.py").path
    }

    /// Starts serving and returns once the server listens.
    func start() throws {
        let ready = folder + "/ready"
        let errors = folder + "/stderr"
        try? FileManager.default.removeItem(atPath: ready)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")  // Debian's: it has python3-gi
        process.arguments =
            [Self.script, "--port", "\(port)", "--pattern", pattern, "--ready-file", ready]
            + (user.map { ["--user", $0, "--password", password ?? ""] } ?? []) + options
        process.standardOutput = FileHandle.nullDevice
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        self.process = process
        if Poll.until(
            timeout: 15, every: 0.05, { !process.isRunning || FileManager.default.fileExists(atPath: ready) }),
            process.isRunning
        {
            return
        }
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)).map { String($0.suffix(1500)) } ?? ""
        throw DaemonError(message: "RTSP camera on port \(port) did not start: \(said)")
    }

    /// Takes the camera off the network at once (a reboot, a cable pulled): SIGKILL, no TEARDOWN.
    func stop() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }
}
