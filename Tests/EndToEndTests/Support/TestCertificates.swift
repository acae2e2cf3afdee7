import Foundation
import TestSupport

/// A throwaway certificate authority and a server certificate for 127.0.0.1 it signed, made with the openssl CLI:
/// for HTTPS tests against the real WebDAV server.
final class TestCertificates: @unchecked Sendable {
    let directory: String
    var caCertificate: String { directory + "/ca.pem" }
    var serverCertificate: String { directory + "/server.pem" }
    var serverKey: String { directory + "/server.key" }

    init() throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: directory + "/server.ext", atomically: true, encoding: .utf8)
        let curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try Self.openssl(
            ["req", "-x509"] + curve + [
                "-keyout", directory + "/ca.key", "-out", caCertificate,
                "-days", "2", "-subj", "/CN=appliance test CA",
            ])
        try Self.openssl(
            ["req"] + curve + ["-keyout", serverKey, "-out", directory + "/server.csr", "-subj", "/CN=127.0.0.1"])
        try Self.openssl([
            "x509", "-req", "-in", directory + "/server.csr", "-CA", caCertificate, "-CAkey", directory + "/ca.key",
            "-CAcreateserial", "-out", serverCertificate, "-days", "2", "-extfile", directory + "/server.ext",
        ])
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    /// The system's CA bundle with this CA appended, for a daemon that sees it in place of the real one.
    func systemBundleWithCA() throws -> String {
        let system = try String(contentsOfFile: Self.systemBundle, encoding: .utf8)
        let path = directory + "/ca-certificates.crt"
        try (system + "\n" + (try String(contentsOfFile: caCertificate, encoding: .utf8))).write(
            toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Where Debian keeps the system's trusted CAs (and where NIOSSL looks first).
    static let systemBundle = "/etc/ssl/certs/ca-certificates.crt"

    private static func openssl(_ arguments: [String]) throws {
        let result = try ProcessOutcome.run("/usr/bin/openssl", arguments)
        guard result.status == 0 else {
            throw DaemonError(message: "openssl \(arguments.first ?? ""): \(result.stderr)")
        }
    }
}
