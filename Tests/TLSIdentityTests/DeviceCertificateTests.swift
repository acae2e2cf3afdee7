import Foundation
import TestSupport
import XCTest

@testable import TLSIdentity

/// The device's own certificate, checked with openssl (a real, independent reader): what it is made for, how it is
/// kept, and when it is made again.
final class DeviceCertificateTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        folder =
            FileManager.default.temporaryDirectory.appendingPathComponent("tls-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: folder)
    }

    let lanNames = CertificateNames.forListening(
        on: "0.0.0.0", hostName: "doorcam", interfaceAddresses: ["127.0.0.1", "192.168.1.23"])

    func testItIsAServerCertificateOnP256ForEveryNameTheDeviceIsReachedBy() throws {
        let store = DeviceCertificateStore(dataRoot: folder)
        let (identity, made) = try store.current(names: lanNames, commonName: "doorcam")
        XCTAssertTrue(made)
        let text = try openssl(["x509", "-in", store.certificatePath, "-noout", "-text"])
        XCTAssertTrue(text.contains("ASN1 OID: prime256v1"), text)
        XCTAssertTrue(text.contains("ecdsa-with-SHA256"), text)
        XCTAssertTrue(text.contains("CA:FALSE"), text)
        XCTAssertTrue(text.contains("TLS Web Server Authentication"), text)
        XCTAssertTrue(
            text.contains(
                "DNS:doorcam, DNS:doorcam.local, DNS:localhost, IP Address:127.0.0.1, IP Address:192.168.1.23"), text)
        // The fingerprint a user compares is openssl's (and the browser's).
        let printed = try openssl(["x509", "-in", store.certificatePath, "-noout", "-fingerprint", "-sha256"])
        XCTAssertEqual(
            printed.trimmingCharacters(in: .whitespacesAndNewlines), "sha256 Fingerprint=\(identity.fingerprint)")
        // The key matches and only its owner reads either file or the folder.
        let keyCheck = try openssl(["pkey", "-in", store.keyPath, "-pubout"])
        XCTAssertEqual(keyCheck, try openssl(["x509", "-in", store.certificatePath, "-noout", "-pubkey"]))
        XCTAssertEqual(try mode(store.keyPath), 0o600)
        XCTAssertEqual(try mode(store.certificatePath), 0o600)
        XCTAssertEqual(try mode(store.folder), 0o700)
        XCTAssertEqual(identity.notValidAfter.timeIntervalSinceNow, SelfSignedCertificate.lifetime, accuracy: 60)
    }

    func testItIsKeptAcrossStartsSoAUserTrustsItOnce() throws {
        let store = DeviceCertificateStore(dataRoot: folder)
        let first = try store.current(names: lanNames, commonName: "doorcam").identity
        let again = try store.current(names: lanNames, commonName: "doorcam")
        XCTAssertFalse(again.made)
        XCTAssertEqual(again.identity.fingerprint, first.fingerprint)
        // Fewer names than it has (loopback only) are covered too.
        let loopback = CertificateNames.forListening(on: "127.0.0.1", hostName: "doorcam", interfaceAddresses: [])
        XCTAssertFalse(try store.current(names: loopback, commonName: "doorcam").made)
    }

    func testItIsMadeAgainWithTheSameKeyNearItsEndOrForANewAddress() throws {
        let store = DeviceCertificateStore(dataRoot: folder)
        let longAgo = Date().addingTimeInterval(-SelfSignedCertificate.lifetime + 10 * 86_400)  // 10 days left now
        let old = try store.current(names: lanNames, commonName: "doorcam", now: longAgo).identity
        let renewed = try store.current(names: lanNames, commonName: "doorcam")
        XCTAssertTrue(renewed.made, "10 days left is within the 30 days before its end")
        XCTAssertNotEqual(renewed.identity.fingerprint, old.fingerprint)
        XCTAssertEqual(renewed.identity.publicKeyPin, old.publicKeyPin, "the same key: a pin on it survives")

        let moved = CertificateNames.forListening(
            on: "0.0.0.0", hostName: "doorcam", interfaceAddresses: ["127.0.0.1", "10.0.0.7"])
        let remade = try store.current(names: moved, commonName: "doorcam")
        XCTAssertTrue(remade.made)
        XCTAssertTrue(remade.identity.names.ipAddresses.contains("10.0.0.7"))
        XCTAssertEqual(remade.identity.publicKeyPin, old.publicKeyPin)
    }

    func testAUsersCertificateMustComeWithItsOwnKey() throws {
        let a = try SelfSignedCertificate.make(names: lanNames, privateKey: .init(), commonName: "a")
        let b = try SelfSignedCertificate.make(names: lanNames, privateKey: .init(), commonName: "b")
        XCTAssertThrowsError(
            try ServedIdentity(certificateChainPEM: a.certificateChainPEM, privateKeyPEM: b.privateKeyPEM)
        ) {
            XCTAssertTrue("\($0)".contains("does not belong to the certificate"), "\($0)")
        }
        XCTAssertThrowsError(try ServedIdentity(certificateChainPEM: "hello", privateKeyPEM: a.privateKeyPEM)) {
            XCTAssertTrue("\($0)".contains("certificate"), "\($0)")
        }
        XCTAssertThrowsError(
            try ServedIdentity(
                certificateChainPEM: a.certificateChainPEM,
                privateKeyPEM: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")
        ) {
            XCTAssertTrue("\($0)".contains("private key"), "\($0)")
        }
    }

    func testAnRSACertificateFromOpenSSLIsReadWithItsChain() throws {
        let cert = folder + "/user.crt"
        let key = folder + "/user.key"
        _ = try openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "90",
            "-subj", "/CN=cam.example.org", "-addext", "subjectAltName=DNS:cam.example.org",
        ])
        let other = try SelfSignedCertificate.make(names: lanNames, privateKey: .init(), commonName: "intermediate")
        let chain = try String(contentsOfFile: cert, encoding: .utf8) + other.certificateChainPEM
        let identity = try ServedIdentity(
            certificateChainPEM: chain, privateKeyPEM: try String(contentsOfFile: key, encoding: .utf8))
        XCTAssertEqual(identity.names.dnsNames, ["cam.example.org"])
        let printed = try openssl(["x509", "-in", cert, "-noout", "-fingerprint", "-sha256"])
        XCTAssertEqual(
            printed.trimmingCharacters(in: .whitespacesAndNewlines), "sha256 Fingerprint=\(identity.fingerprint)")
    }

    func testNamesForEachKindOfListenAddress() {
        let loopback = CertificateNames.forListening(
            on: "127.0.0.1", hostName: "cam.lan", interfaceAddresses: ["192.168.1.2"])
        XCTAssertEqual(loopback.ipAddresses, ["127.0.0.1"])
        XCTAssertEqual(loopback.dnsNames, ["cam.lan", "cam", "cam.local"])
        let named = CertificateNames.forListening(on: "cam.example.org", hostName: "cam", interfaceAddresses: [])
        XCTAssertEqual(named.dnsNames.first, "cam.example.org")
        let v6 = CertificateNames.forListening(on: "[::1]", hostName: "cam", interfaceAddresses: [])
        XCTAssertEqual(v6.ipAddresses, ["::1"])
        let sameHostLoopback = CertificateNames.forListening(
            on: "127.0.0.1", hostName: "doorcam", interfaceAddresses: [])
        XCTAssertTrue(lanNames.covers(sameHostLoopback))
        XCTAssertFalse(sameHostLoopback.covers(lanNames))
    }

    private func openssl(_ arguments: [String]) throws -> String {
        let result = try ProcessOutcome.run("/usr/bin/openssl", arguments)
        guard result.status == 0 else {
            throw OpenSSLFailed(description: "openssl \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
        return result.stdout
    }

    private func mode(_ path: String) throws -> Int {
        ((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1)
            & 0o777
    }
}

struct OpenSSLFailed: Error, CustomStringConvertible {
    var description: String
}
