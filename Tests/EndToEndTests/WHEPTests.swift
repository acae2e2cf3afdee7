import ApplianceBase
import ApplianceProtocol
import Foundation
import XCTest

/// WHEP against the real daemon with offers no browser sends: each is refused with a clear error and the daemon goes
/// on serving (the browser's own offer is played in WebBrowserTests).
final class WHEPTests: XCTestCase {
    static let vp8Only = [
        "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0",
        "m=video 9 UDP/TLS/RTP/SAVPF 96", "c=IN IP4 0.0.0.0", "a=mid:0", "a=recvonly", "a=rtcp-mux",
        "a=ice-ufrag:abcd", "a=ice-pwd:abcdefghijklmnopqrstuvwx",
        """
        a=fingerprint:sha-256 \
        00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF
        """,
        "a=setup:actpass", "a=rtpmap:96 VP8/90000", "",
    ].joined(separator: "\r\n")

    func testOffersThatCannotBeAnsweredAreRefusedAndTheDaemonGoesOn() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let url = try daemon.webURL()
        let session = try WireFormat.decoder.decode(
            [String: String].self, from: try Curl.request(url + "/api/session").body)
        let csrf = "X-CSRF-Token: \(try XCTUnwrap(session["csrf"]))"
        let sdp = "Content-Type: application/sdp"

        for (offer, says) in [
            ("hello", "not an SDP description"), (Self.vp8Only, "no H.264"), ("", "not an SDP description"),
        ] {
            let refused = try Curl.request(
                url + "/api/whep", method: "POST", headers: [sdp, csrf], body: Data(offer.utf8))
            XCTAssertEqual(refused.status, 400, refused.text)
            XCTAssertTrue(refused.text.contains("bad_request") && refused.text.contains(says), refused.text)
        }
        let json = try Curl.request(
            url + "/api/whep", method: "POST", headers: ["Content-Type: application/json", csrf], body: Data("{}".utf8))
        XCTAssertEqual(json.status, 415, json.text)
        let gone = try Curl.request(url + "/api/whep/nothing-here", method: "DELETE", headers: [csrf])
        XCTAssertEqual(gone.status, 404, gone.text)

        XCTAssertEqual(try daemon.status().web?.webrtcViewers, 0, "no session was left behind")
        XCTAssertNotNil(try? daemon.recordClip(seconds: 0.5), "the daemon still records")
    }
}
