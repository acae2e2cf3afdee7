import Foundation
import TestSupport
import XCTest

/// A real S3 server on 127.0.0.1 for the backup tests (Tests/S3/s3_server.py): `rclone serve s3` (objects are
/// files under its folder, SigV4 checked against its key) or moto's server (in memory; with `auth`, keys checked
/// through its IAM). The bucket exists once `start` returns; a restart of moto starts it empty (with the bucket).
final class S3Server {
    enum Kind: String { case rclone, moto }

    let kind: Kind
    let auth: Bool
    let port: Int
    let root: String
    let bucket = "backup"
    private(set) var accessKey = "appliance-key"
    private(set) var secretKey = "appliance-secret"
    private var process: Process?

    var endpoint: String { "http://127.0.0.1:\(port)" }

    init(_ kind: Kind, auth: Bool = true) throws {
        self.kind = kind
        self.auth = auth
        root = FileManager.default.temporaryDirectory.appendingPathComponent("s3-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        port = FreePort.pick()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: root)
    }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("S3/s3_server.py").path
    }

    func start() throws {
        let ready = root + ".ready"
        let errors = root + ".stderr"
        try? FileManager.default.removeItem(atPath: ready)
        _ = FileManager.default.createFile(atPath: ready, contents: nil)
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            [
                "python3", Self.script, "serve", "--kind", kind.rawValue, "--port", "\(port)", "--root", root + "/data",
                "--bucket", bucket, "--key", accessKey, "--secret", secretKey,
            ] + (auth ? ["--auth"] : [])
        process.standardOutput = FileHandle(forWritingAtPath: ready)
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        self.process = process
        let line = {
            (try? String(contentsOfFile: ready, encoding: .utf8))?.split(separator: "\n").first.map(String.init)
        }
        guard Poll.until(timeout: 40, every: 0.1, { !process.isRunning || line() != nil }), process.isRunning,
            let keys = line().flatMap({ try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String] })
        else {
            let said = (try? String(contentsOfFile: errors, encoding: .utf8)).map { String($0.suffix(1500)) } ?? ""
            throw DaemonError(message: "\(kind) S3 server on port \(port) did not start: \(said)")
        }
        accessKey = keys["access_key"] ?? accessKey
        secretKey = keys["secret_key"] ?? secretKey
    }

    /// Kills the server at once (a crash or a power cut on the server's side).
    func stop() {
        guard let process else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        self.process = nil
    }

    private func helper(_ command: String, _ extra: [String] = []) throws -> String {
        let result = try ProcessOutcome.run(
            "/usr/bin/env",
            [
                "python3", Self.script, command, "--port", "\(port)", "--bucket", bucket,
                "--key", accessKey, "--secret", secretKey,
            ] + extra, timeout: 120)
        guard result.status == 0 else {
            throw DaemonError(message: "s3_server.py \(command): \(result.stderr.suffix(800))")
        }
        return result.stdout
    }

    /// Every object in the bucket, read back through S3: key → (size, SHA-256).
    func objects() throws -> [String: (size: Int64, sha256: String)] {
        let json =
            try JSONSerialization.jsonObject(with: Data(try helper("list").utf8)) as? [String: [String: Any]] ?? [:]
        return json.mapValues { (($0["size"] as? NSNumber)?.int64Value ?? -1, $0["sha256"] as? String ?? "") }
    }

    /// Multipart uploads still open in the bucket (keys).
    func openUploads() throws -> [String] {
        try JSONSerialization.jsonObject(with: Data(try helper("uploads").utf8)) as? [String] ?? []
    }

    func createBucket(_ name: String) throws {
        let result = try ProcessOutcome.run(
            "/usr/bin/env",
            [
                "python3", Self.script, "create-bucket", "--port", "\(port)", "--bucket", name,
                "--key", accessKey, "--secret", secretKey,
            ], timeout: 60)
        guard result.status == 0 else { throw DaemonError(message: "create-bucket: \(result.stderr.suffix(800))") }
    }

    /// The daemon's [backup] section for this server; the secret goes to a 0600 file (`secret` overrides it).
    func backupConfig(in directory: URL, bucket: String? = nil, extra: String = "", secret: String? = nil) throws
        -> String
    {
        let file = directory.appendingPathComponent("s3-secret").path
        try (secret ?? secretKey).write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o600)
        return """
            [backup]
            url = "s3://\(bucket ?? self.bucket)/fleet/{device}"
            endpoint = "\(endpoint)"
            access_key = "\(accessKey)"
            secret_key_file = "\(file)"
            part_size_mb = 5
            retry_base_s = 0.2
            \(extra)
            """
    }
}

/// The SHA-256 of a file, in hex (to compare with what the server has).
func fileSHA256(_ path: String) throws -> String {
    let result = try ProcessOutcome.run("/usr/bin/sha256sum", [path])
    return String(result.stdout.prefix(64))
}
