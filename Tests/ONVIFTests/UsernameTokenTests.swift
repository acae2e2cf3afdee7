import ApplianceBase
import Foundation
import XCTest

@testable import ONVIF

/// WS-UsernameToken as ONVIF clients sign: the digest (known answer from Python's hashlib, as zeep computes it),
/// a wrong password or user, a Created outside five minutes, a replayed nonce and a plain-text password are refused.
final class UsernameTokenTests: XCTestCase {
    static let password = "correct-horse-battery-staple"

    func testTheDigestIsBase64OfSHA1OfNonceCreatedAndPassword() {
        XCTAssertEqual(
            UsernameToken.digest(nonce: Data(0..<16), created: "2026-07-01T12:00:00+00:00", password: Self.password),
            "djG9QDUMVBXAX2ec2TFtvNGHc8s=")
    }

    func testTheRightTokenPassesOnceAndEveryWrongOneIsRefused() throws {
        let verifier = UsernameTokenVerifier(user: "appliance", password: Self.password)
        let now = Date()
        let token = Self.token(created: ONVIFTime.string(now))
        XCTAssertNoThrow(try verifier.verify(token, now: now))
        XCTAssertThrowsError(try verifier.verify(token, now: now.addingTimeInterval(1))) {
            XCTAssertTrue("\($0)".contains("replayed"))
        }

        let refusals: [(UsernameToken, String)] = [
            (Self.token(created: ONVIFTime.string(now), password: "wrong"), "wrong user name or password"),
            (Self.token(created: ONVIFTime.string(now), user: "admin"), "wrong user name or password"),
            (Self.token(created: ONVIFTime.string(now.addingTimeInterval(-301))), "more than 300 s"),
            (Self.token(created: ONVIFTime.string(now.addingTimeInterval(301))), "more than 300 s"),
            (Self.token(created: "yesterday"), "not a date"),
        ]
        for (token, reason) in refusals {
            XCTAssertThrowsError(try verifier.verify(token, now: now)) { error in
                XCTAssertEqual((error as? SOAPFault)?.subcode, "ter:NotAuthorized")
                XCTAssertTrue("\(error)".contains(reason), "\(error)")
            }
        }
    }

    /// A digest is read as a token to verify; a PasswordText token is read apart, as a name and password (an
    /// account's, checked by the device only over HTTPS), and is never taken for a digest.
    func testTheTokenIsReadFromTheHeaderAndPlainTextApart() throws {
        let header = { (type: String) in
            try XMLTree.parse(
                Data(
                    """
                    <h:Header xmlns:h="http://www.w3.org/2003/05/soap-envelope"><wsse:Security \
                    xmlns:wsse="\(ONVIFNamespace.security)" \
                    xmlns:wsu="\(ONVIFNamespace.securityUtility)"><wsse:UsernameToken><wsse:Username>appliance</\
                    wsse:Username>\
                    <wsse:Password Type="\(type)">ZGlnZXN0</wsse:Password><wsse:Nonce>AAECAwQFBgcICQoLDA0ODw==</\
                    wsse:Nonce>\
                    <wsu:Created>2026-07-01T12:00:00Z</wsu:Created></wsse:UsernameToken></wsse:Security></h:Header>
                    """.utf8))
        }
        let token = try UsernameToken.from(header: header(UsernameToken.digestType))
        XCTAssertEqual(
            token,
            UsernameToken(
                username: "appliance", digest: "ZGlnZXN0", nonce: Data(0..<16), created: "2026-07-01T12:00:00Z"))
        let plain = "http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText"
        XCTAssertThrowsError(try UsernameToken.from(header: header(plain))) {
            XCTAssertTrue("\($0)".contains("PasswordText is not accepted"))
        }
        XCTAssertEqual(
            try UsernameToken.plain(header: header(plain)),
            UsernameToken.PlainPassword(username: "appliance", password: "ZGlnZXN0"))
        XCTAssertNil(try UsernameToken.plain(header: header(UsernameToken.digestType)))
        XCTAssertThrowsError(try UsernameToken.from(header: nil)) {
            XCTAssertTrue("\($0)".contains("no WS-Security UsernameToken"))
        }
    }

    func testRememberedNoncesAreBounded() {
        let verifier = UsernameTokenVerifier(user: "appliance", password: Self.password, maxRemembered: 100)
        let now = Date()
        for _ in 0..<150 { XCTAssertNoThrow(try verifier.verify(Self.token(created: ONVIFTime.string(now)), now: now)) }
        XCTAssertEqual(verifier.remembered, 100)
        verifier.purge(now: now.addingTimeInterval(UsernameTokenVerifier.window * 2))
        XCTAssertEqual(verifier.remembered, 0, "forgotten once they could no longer be accepted")
    }

    static func token(created: String, user: String = "appliance", password: String = UsernameTokenTests.password)
        -> UsernameToken
    {
        let nonce = Data((0..<16).map { _ in UInt8.random(in: 0...255) })
        return UsernameToken(
            username: user, digest: UsernameToken.digest(nonce: nonce, created: created, password: password),
            nonce: nonce, created: created)
    }
}
