import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Backup over HTTPS to the real WebDAV server serving TLS on 127.0.0.1 with a certificate from a throwaway CA.
final class HTTPSBackupTests: XCTestCase {
    /// Peer verification is on: a certificate nobody trusts is refused with a clear reason and nothing is written;
    /// `ca_file` naming the server's CA makes the same queued clip arrive after a restart.
    func testUntrustedCertificateIsRefusedUntilCAFileTrustsIt() throws {
        let certificates = try TestCertificates()
        let server = try WebDAVServer(tls: certificates)
        try server.start()
        let daemon = try DaemonProcess()
        try daemon.appendConfig(try server.backupConfig(in: daemon.directory))
        try daemon.start()
        let id = try daemon.recordClip(title: "tls").id
        let refused = try daemon.waitFor(15) {
            (try daemon.backupStatus().lastError ?? "").contains("not trusted")
        }
        let status = try daemon.backupStatus()
        XCTAssertTrue(refused, "\(status)")
        XCTAssertEqual(status.paused, false, "a TLS failure is retried with backoff, not a pause")
        XCTAssertEqual(try daemon.backupCounts().done, 0)
        XCTAssertEqual(
            try server.log().filter { ["PUT", "MOVE", "MKCOL"].contains($0["method"] as? String ?? "") }.count, 0,
            "no request got past the handshake")
        XCTAssertEqual(server.files().count, 0)
        XCTAssertEqual(daemon.stop(), 0)

        try daemon.appendConfig("ca_file = \"\(certificates.caCertificate)\"")
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertTrue(try daemon.waitFor(20) { try daemon.backupCounts().done == 1 }, daemon.log)
        XCTAssertTrue(server.files().keys.contains { $0.hasSuffix("_\(id).mp4") }, "\(server.files())")
    }

    /// With no `ca_file`, the system's CA store decides: the daemon runs in a private mount namespace where the
    /// system bundle (/etc/ssl/certs/ca-certificates.crt) also holds the test CA, and the clip arrives.
    func testSystemCAStoreIsTrusted() throws {
        guard (try? ProcessOutcome.run("/usr/bin/unshare", ["-m", "true"]))?.status == 0 else {
            throw XCTSkip("no private mount namespace here (unshare -m needs root or user namespaces)")
        }
        let certificates = try TestCertificates()
        let bundle = try certificates.systemBundleWithCA()
        let server = try WebDAVServer(tls: certificates)
        try server.start()
        let daemon = try DaemonProcess()
        try daemon.appendConfig(try server.backupConfig(in: daemon.directory))
        daemon.launcher = [
            "/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
            "mount --bind '\(bundle)' \(TestCertificates.systemBundle) && exec \"$0\" \"$@\"",
        ]
        try daemon.start()
        defer { daemon.stop() }
        let id = try daemon.recordClip(title: "tls").id
        XCTAssertTrue(try daemon.waitFor(20) { try daemon.backupCounts().done == 1 }, daemon.log)
        XCTAssertTrue(server.files().keys.contains { $0.hasSuffix("_\(id).mp4") }, "\(server.files())")
        let systemStore = try String(contentsOfFile: TestCertificates.systemBundle, encoding: .utf8)
        let testCA = try String(contentsOfFile: certificates.caCertificate, encoding: .utf8)
        XCTAssertFalse(systemStore.contains(testCA), "the machine's own store is untouched")
    }

    func testUnreadableCAFileIsAClearStartError() throws {
        let daemon = try DaemonProcess()
        try daemon.appendConfig(
            "[backup]\nurl = \"https://127.0.0.1:9/dav\"\nca_file = \"\(daemon.directory.path)/missing.pem\"")
        let result = try ProcessOutcome.run(
            DaemonProcess.binary, ["run", "--config", daemon.configPath, "--socket", daemon.socketPath])
        XCTAssertNotEqual(result.status, 0)
        let line = result.stderr.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(line.contains("backup.ca_file") && line.contains("missing.pem"), line)
    }
}
