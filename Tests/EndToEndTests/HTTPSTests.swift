import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// The dashboard over HTTPS (`[web] tls = "on"`, as `auto` does on any address but loopback), checked with curl and
/// openssl as a client elsewhere would: the device's own certificate and its fingerprint everywhere a user looks,
/// no content over plain HTTP, nothing below TLS 1.2, and a user's own certificate read again when it changes.
final class HTTPSTests: XCTestCase {
    func testTheDeviceServesItsOwnCertificateAndPlainHTTPOnlyGetsARedirect() throws {
        let web = try WebDaemon(web: "tls = \"on\"")
        defer { web.stop() }
        XCTAssertTrue(web.url.hasPrefix("https://127.0.0.1:"), web.url)
        let port = try XCTUnwrap(URLComponents(string: web.url)?.port)
        let certificate = web.daemon.dataDir + "/tls/device.crt"
        let fingerprint = try XCTUnwrap(try web.daemon.status().web?.fingerprint)
        XCTAssertEqual(try TLSProbe.fingerprint(ofFile: certificate), fingerprint)
        XCTAssertEqual(try TLSProbe.servedFingerprint(port: port), fingerprint)

        // Content over HTTPS, trusting the device's certificate: the API, and the login page with the fingerprint.
        let status = try Curl.request(web.url + "/api/status", bearer: WebDaemon.password, caFile: certificate)
        XCTAssertEqual(status.status, 200)
        XCTAssertEqual((status.json?["web"] as? [String: Any])?["fingerprint"] as? String, fingerprint)
        let login = try Curl.request(web.url + "/login", caFile: certificate)
        XCTAssertEqual(login.status, 200)
        XCTAssertTrue(login.text.contains(fingerprint), "the login page shows the fingerprint")

        // Plain HTTP on the same port: a redirect to the same place over HTTPS, never content, never a command.
        let plain = "http://127.0.0.1:\(port)"
        let read = try Curl.request(plain + "/api/clips?limit=5", bearer: WebDaemon.password)
        XCTAssertEqual(read.status, 301)
        XCTAssertEqual(read.header("Location"), "https://127.0.0.1:\(port)/api/clips?limit=5")
        XCTAssertTrue(read.body.isEmpty)
        let command = try Curl.request(
            plain + "/api/record/start", method: "POST", bearer: WebDaemon.password, body: Data("{}".utf8))
        XCTAssertEqual(command.status, 308)
        XCTAssertTrue(command.body.isEmpty)
        XCTAssertEqual(try web.daemon.status().state, .idle, "a command over plain HTTP does nothing")

        // TLS 1.2 and 1.3 only (the client is told to allow anything, so the refusal is the server's).
        XCTAssertEqual(try TLSProbe.protocolNegotiated(port: port, option: "-tls1_3"), "TLSv1.3")
        XCTAssertEqual(try TLSProbe.protocolNegotiated(port: port, option: "-tls1_2"), "TLSv1.2")
        XCTAssertNil(try TLSProbe.protocolNegotiated(port: port, option: "-tls1_1"))
        XCTAssertNil(try TLSProbe.protocolNegotiated(port: port, option: "-tls1"))

        // `ctl status` shows it; a restart keeps the same certificate (a user trusts it once).
        XCTAssertTrue(try web.daemon.ctl(["status"]).stdout.contains("web certificate SHA-256: \(fingerprint)"))
        web.daemon.stop()
        try web.daemon.start()
        XCTAssertEqual(try web.daemon.webURL().hasPrefix("https://"), true)
        XCTAssertEqual(try web.daemon.status().web?.fingerprint, fingerprint)
    }

    func testAUsersOwnCertificateIsReadAgainWhenItsFilesChange() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "user-tls-\(UUID().uuidString.prefix(8))"
        ).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let first = try TLSProbe.makeCertificate(in: folder, name: "first")
        let cert = folder + "/fullchain.pem"
        let key = folder + "/privkey.pem"
        try FileManager.default.copyItem(atPath: first.cert, toPath: cert)
        try FileManager.default.copyItem(atPath: first.key, toPath: key)
        let web = try WebDaemon(web: "tls = \"on\"\ncert_file = \"\(cert)\"\nkey_file = \"\(key)\"")
        defer { web.stop() }
        let port = try XCTUnwrap(URLComponents(string: web.url)?.port)
        let firstPrint = try TLSProbe.fingerprint(ofFile: first.cert)
        XCTAssertEqual(try web.daemon.status().web?.fingerprint, firstPrint)
        XCTAssertEqual(try TLSProbe.servedFingerprint(port: port), firstPrint)
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: web.daemon.dataDir + "/tls"), "no certificate of its own is made")

        // Renewed as certbot does it: new files renamed over the old ones.
        let second = try TLSProbe.makeCertificate(in: folder, name: "second")
        let secondPrint = try TLSProbe.fingerprint(ofFile: second.cert)
        XCTAssertEqual(rename(second.key, key), 0)
        XCTAssertEqual(rename(second.cert, cert), 0)
        XCTAssertTrue(
            web.daemon.waitFor(30) { (try? web.daemon.status().web?.fingerprint) == secondPrint },
            "the new certificate is served")
        XCTAssertEqual(try TLSProbe.servedFingerprint(port: port), secondPrint)

        // A broken file is reported and the last good certificate kept.
        try "not a key\n".write(toFile: key, atomically: true, encoding: .utf8)
        XCTAssertTrue(web.daemon.waitFor(30) { web.daemon.log.contains("web certificate not replaced") })
        XCTAssertEqual(try TLSProbe.servedFingerprint(port: port), secondPrint)
        XCTAssertEqual(try Curl.request(web.url + "/api/status", bearer: WebDaemon.password, caFile: cert).status, 200)
    }
}

/// testssl.sh, the scanner an administrator runs against their own servers, on the dashboard as the device sets it up
/// by itself (its own certificate, trusted with `--add-ca` as a user trusts it after checking the fingerprint).
final class TestsslScanTests: XCTestCase {
    /// Rated findings it may report: the device's own certificate names no revocation service (CRL or OCSP URI),
    /// which testssl.sh rates HIGH for any certificate. A self-signed certificate is its own trust anchor: it is
    /// "revoked" by no longer trusting it, and no server of ours could answer OCSP for it.
    static let allowed: Set<String> = ["cert_revocation"]

    func testNoProtocolBelowTLS12AndNoFindingOfMediumOrAbove() throws {
        let web = try WebDaemon(web: "tls = \"on\"")
        defer { web.stop() }
        let port = try XCTUnwrap(URLComponents(string: web.url)?.port)
        let report = web.daemon.directory.appendingPathComponent("testssl.json").path
        let scan = try ProcessOutcome.run(
            "/usr/bin/testssl",
            [
                "--quiet", "--color", "0", "--warnings", "off",
                // Its default scan but the client simulation (-c: 35 handshakes of old browsers, each rated INFO,
                // about a third of the scan's time).
                "-p", "-s", "-f", "-S", "-P", "-h", "-U", "-E",
                "--add-ca", web.daemon.dataDir + "/tls/device.crt",
                "--jsonfile", report, "127.0.0.1:\(port)",
            ], timeout: 900)
        let findings = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [[String: Any]],
            "testssl.sh wrote its report (exit \(scan.status)): \(scan.stderr)")
        func finding(_ id: String) -> String? { findings.first { $0["id"] as? String == id }?["finding"] as? String }
        for old in ["SSLv2", "SSLv3", "TLS1", "TLS1_1"] { XCTAssertEqual(finding(old), "not offered", old) }
        XCTAssertEqual(finding("TLS1_2"), "offered")
        XCTAssertTrue(finding("TLS1_3")?.hasPrefix("offered") ?? false, finding("TLS1_3") ?? "no TLS1_3 line")
        XCTAssertEqual(
            finding("cert_chain_of_trust"), "passed.",
            "the device's certificate, once trusted, is a valid chain for 127.0.0.1")
        let rated = findings.filter { ["MEDIUM", "HIGH", "CRITICAL"].contains($0["severity"] as? String ?? "") }
            .filter { !Self.allowed.contains($0["id"] as? String ?? "") }
        XCTAssertEqual(rated.map { "\($0["id"] ?? "?") \($0["severity"] ?? "?"): \($0["finding"] ?? "")" }, [])
        XCTAssertGreaterThan(findings.count, 80, "a whole scan ran (98 lines here)")
    }
}

/// openssl as the other side of the connection.
enum TLSProbe {
    static let openssl = "/usr/bin/openssl"

    /// "AB:CD:…" as `openssl x509 -fingerprint -sha256` prints it, of a PEM file.
    static func fingerprint(ofFile path: String) throws -> String {
        let result = try ProcessOutcome.run(openssl, ["x509", "-in", path, "-noout", "-fingerprint", "-sha256"])
        guard result.status == 0, let value = result.stdout.split(separator: "=").last else {
            throw DaemonError(message: "openssl x509 \(path): \(result.stderr)")
        }
        return value.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The fingerprint of the certificate the server on 127.0.0.1:`port` presents.
    static func servedFingerprint(port: Int) throws -> String {
        let result = try ProcessOutcome.run(
            "/bin/sh",
            [
                "-c",
                """
                \(openssl) s_client -connect 127.0.0.1:\(port) </dev/null 2>/dev/null | \(openssl) x509 -noout \
                -fingerprint -sha256
                """,
            ], timeout: 30)
        guard result.status == 0, let value = result.stdout.split(separator: "=").last else {
            throw DaemonError(message: "no certificate served on \(port): \(result.stderr)")
        }
        return value.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The protocol a handshake restricted by `option` (`-tls1_2`…) agrees on; nil when the server refuses it. The
    /// client allows every cipher and security level, so a refusal is the server's.
    static func protocolNegotiated(port: Int, option: String) throws -> String? {
        let result = try ProcessOutcome.run(
            openssl, ["s_client", "-connect", "127.0.0.1:\(port)", option, "-cipher", "ALL:@SECLEVEL=0"], timeout: 30)
        guard result.status == 0 else { return nil }
        // "New, TLSv1.3, Cipher is TLS_AES_256_GCM_SHA384" ("New, (NONE), …" when nothing was agreed).
        let line = result.stdout.split(separator: "\n").first { $0.hasPrefix("New, ") }
        let agreed = line.map { $0.split(separator: ",")[1].trimmingCharacters(in: .whitespaces) }
        return agreed == "(NONE)" ? nil : agreed
    }

    /// A self-signed EC certificate for 127.0.0.1 made with openssl, as a user would bring one.
    static func makeCertificate(in folder: String, name: String) throws -> (cert: String, key: String) {
        let cert = "\(folder)/\(name).crt"
        let key = "\(folder)/\(name).key"
        let result = try ProcessOutcome.run(
            openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", key, "-out", cert, "-days", "30", "-subj", "/CN=\(name)",
                "-addext", "subjectAltName=IP:127.0.0.1",
            ])
        guard result.status == 0 else { throw DaemonError(message: "openssl req: \(result.stderr)") }
        return (cert, key)
    }
}
