import Foundation
import TestSupport
import XCTest

/// The real WebDAV server the backup tests talk to (Tests/WebDAV/webdav_server.py: wsgidav + cheroot on
/// 127.0.0.1 with Basic auth), started and stopped by the test, with its fault injection.
final class WebDAVServer {
    let root: String
    let port: Int
    let user = "appliance"
    let password = "s3cret-Pässword"
    private var process: Process?
    /// Serves HTTPS with this certificate when set.
    let tls: TestCertificates?

    var origin: String { "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)" }
    var url: String { "\(origin)/dav/backup" }
    var remoteRoot: String { root + "/backup" }

    init(tls: TestCertificates? = nil) throws {
        self.tls = tls
        root = FileManager.default.temporaryDirectory.appendingPathComponent("dav-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        port = FreePort.pick()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: root)
        try? FileManager.default.removeItem(atPath: root + ".stderr")
    }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("WebDAV/webdav_server.py").path
    }

    func start() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["python3", Self.script, "--root", root, "--port", "\(port)", "--user", user, "--password", password]
            + (tls.map { ["--cert", $0.serverCertificate, "--key", $0.serverKey] } ?? [])
        process.standardOutput = FileHandle.nullDevice
        let errors = root + ".stderr"
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        self.process = process
        let origin = origin
        let answers = {
            (try? ProcessOutcome.run(
                "/usr/bin/curl", ["-sk", "-o", "/dev/null", "-w", "%{http_code}", "\(origin)/__log"]))?.stdout == "200"
        }
        if Poll.until(timeout: 15, every: 0.1, { !process.isRunning || answers() }), process.isRunning { return }
        let said = (try? String(contentsOfFile: errors, encoding: .utf8)).map { String($0.suffix(1500)) } ?? ""
        throw DaemonError(
            message:
                """
                WebDAV server on port \(port) did not start \
                (\(process.isRunning ? "no answer in 15 s" : "it exited")): \(said)
                """
        )
    }

    /// Kills the server at once (like a crash or a power cut on the server side).
    func stop() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    /// Sets faults: fail (statuses for the next requests), retry_after, delay_ms, rate_kbps, full.
    func control(_ settings: [String: Any]) throws {
        let body = String(decoding: try JSONSerialization.data(withJSONObject: settings), as: UTF8.self)
        let result = try ProcessOutcome.run("/usr/bin/curl", ["-sk", "-X", "POST", "-d", body, "\(origin)/__control"])
        guard result.status == 0 else { throw DaemonError(message: "control failed: \(result.stderr)") }
    }

    /// Requests the server has seen: method, path, status, time.
    func log() throws -> [[String: Any]] {
        let result = try ProcessOutcome.run("/usr/bin/curl", ["-sk", "\(origin)/__log"])
        return (try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [[String: Any]]) ?? []
    }

    /// Files under the backup folder, relative paths → size.
    func files() -> [String: Int64] {
        var result: [String: Int64] = [:]
        let enumerator = FileManager.default.enumerator(atPath: remoteRoot)
        while let item = enumerator?.nextObject() as? String {
            let path = remoteRoot + "/" + item
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                result[item] =
                    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? -1
            }
        }
        return result
    }

    /// The daemon config section for this server; the password goes to a 0600 file.
    func backupConfig(in directory: URL, extra: String = "", password: String? = nil) throws -> String {
        let file = directory.appendingPathComponent("webdav-password").path
        try (password ?? self.password).write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        return """
            [backup]
            url = "\(url)"
            username = "\(user)"
            password_file = "\(file)"
            retry_base_s = 0.2
            \(extra)
            """
    }
}
