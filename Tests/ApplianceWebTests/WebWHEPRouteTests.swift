import ApplianceBase
import ApplianceProtocol
import Engine
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import XCTest

@testable import ApplianceApp
@testable import ApplianceWeb

/// The WHEP resource (RFC 9725) in-process: an SDP offer POSTed as application/sdp is answered 201 with the SDP
/// answer and a Location to DELETE; refusals keep the API's error codes; it is a write, so it needs the bearer
/// password or the session's CSRF token. What answers the offer is the core's (`WebRTCViewers`, tested end to end
/// in a browser); here it is a recorder of what the web layer hands over.
final class WebWHEPRouteTests: XCTestCase {
    final class Recorded: WHEPSessions {
        var count: Int { 0 }
        let offers = Locked<[String]>([])
        let sounds = Locked<[Bool]>([])
        let ended = Locked<[String]>([])
        func answer(offer: String, sound: Bool) async throws(ApplianceError) -> WHEPAnswer {
            offers.withLock { $0.append(offer) }
            sounds.withLock { $0.append(sound) }
            guard offer.hasPrefix("v=0") else { throw ApplianceError(.badRequest, "cannot answer the offer: not SDP") }
            return WHEPAnswer(id: "abc123", sdp: "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\n")
        }

        func setSound(_ id: String, on: Bool) async throws(ApplianceError) {
            guard id == "abc123" else { throw ApplianceError(.notFound, "no WebRTC session \(id)") }
            sounds.withLock { $0.append(on) }
        }

        let talks = Locked<[Bool]>([])
        func setTalk(_ id: String, on: Bool) async throws(ApplianceError) {
            guard id == "abc123" else { throw ApplianceError(.notFound, "no WebRTC session \(id)") }
            if on, talks.withLock({ $0.last == true }) {
                throw ApplianceError(.conflict, "someone else is talking (for 1 s): one at a time")
            }
            talks.withLock { $0.append(on) }
        }

        func end(_ id: String) async throws(ApplianceError) {
            guard id == "abc123" else { throw ApplianceError(.notFound, "no WebRTC session \(id)") }
            ended.withLock { $0.append(id) }
        }
    }

    static let offer = "v=0\r\no=- 42 2 IN IP4 127.0.0.1\r\ns=-\r\nt=0 0\r\nm=video 9 UDP/TLS/RTP/SAVPF 96\r\n"
    static let sdp = "Content-Type: application/sdp"

    func testAnOfferIsAnsweredWithALocationToDelete() async throws {
        let sessions = Recorded()
        let web = try WebHarness(whep: sessions)
        try await web.test { client in
            let answered = try await client.request("/api/whep", method: .post, headers: [Self.sdp], body: Self.offer)
            XCTAssertEqual(answered.status, .created, answered.text)
            XCTAssertEqual(answered.header("Content-Type"), "application/sdp")
            XCTAssertEqual(answered.header("Location"), "/api/whep/abc123")
            XCTAssertEqual(answered.text, "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\n")
            XCTAssertEqual(sessions.offers.withLock { $0 }, [Self.offer], "the offer reaches the core as sent")

            let ended = try await client.request("/api/whep/abc123", method: .delete)
            XCTAssertEqual(ended.status, .ok)
            XCTAssertEqual(sessions.ended.withLock { $0 }, ["abc123"])
            let again = try await client.request("/api/whep/nope", method: .delete)
            XCTAssertEqual(again.status, .notFound)
            XCTAssertEqual(again.errorCode, "not_found")
        }
    }

    /// The live page starts a session without sound (`?sound=off`) and turns it on with a click; a WHEP client that
    /// says nothing gets sound from the start. Bad values are refused before the core sees them.
    func testSoundStartsOffOnRequestAndIsTurnedOnLater() async throws {
        let sessions = Recorded()
        let web = try WebHarness(whep: sessions)
        try await web.test { client in
            let plain = try await client.request("/api/whep", method: .post, headers: [Self.sdp], body: Self.offer)
            XCTAssertEqual(plain.status, .created, plain.text)
            let muted = try await client.request(
                "/api/whep?sound=off", method: .post, headers: [Self.sdp], body: Self.offer)
            XCTAssertEqual(muted.status, .created, muted.text)
            let odd = try await client.request(
                "/api/whep?sound=loud", method: .post, headers: [Self.sdp], body: Self.offer)
            XCTAssertEqual(odd.status, .badRequest)
            XCTAssertEqual(sessions.sounds.withLock { $0 }, [true, false])

            let on = try await client.request("/api/whep/abc123/sound", method: .post, body: #"{"on": true}"#)
            XCTAssertEqual(on.status, .ok, on.text)
            let off = try await client.request("/api/whep/abc123/sound", method: .post, body: #"{"on": false}"#)
            XCTAssertEqual(off.status, .ok, off.text)
            let unsaid = try await client.request("/api/whep/abc123/sound", method: .post, body: #"{"on": "yes"}"#)
            XCTAssertEqual(unsaid.status, .badRequest)
            XCTAssertEqual(unsaid.errorCode, "bad_request")
            let unknown = try await client.request("/api/whep/nope/sound", method: .post, body: #"{"on": true}"#)
            XCTAssertEqual(unknown.status, .notFound)
            let anonymous = try await client.request(
                "/api/whep/abc123/sound", method: .post, auth: false, body: #"{"on": false}"#)
            XCTAssertEqual(anonymous.status, .unauthorized)
            XCTAssertEqual(
                sessions.sounds.withLock { $0 }, [true, false, true, false],
                "only the well-formed, authorised requests reached the core")
        }
    }

    func testTalkIsForAdminsOneAtATime() async throws {
        XCTAssertEqual(
            RoutePolicy.requirement(method: .post, path: "/api/whep/{id}/talk"), .admin,
            "a viewer may watch and listen, not talk")
        XCTAssertEqual(RoutePolicy.requirement(method: .post, path: "/api/whep/{id}/sound"), .viewer)
        let sessions = Recorded()
        let web = try WebHarness(whep: sessions)
        try await web.test { client in
            let on = try await client.request("/api/whep/abc123/talk", method: .post, body: #"{"on": true}"#)
            XCTAssertEqual(on.status, .ok, on.text)
            let again = try await client.request("/api/whep/abc123/talk", method: .post, body: #"{"on": true}"#)
            XCTAssertEqual(again.status, .conflict, "one talker at a time")
            XCTAssertEqual(again.errorCode, "conflict")
            let off = try await client.request("/api/whep/abc123/talk", method: .post, body: #"{"on": false}"#)
            XCTAssertEqual(off.status, .ok, off.text)
            let unsaid = try await client.request("/api/whep/abc123/talk", method: .post, body: #"{}"#)
            XCTAssertEqual(unsaid.status, .badRequest)
            let unknown = try await client.request("/api/whep/nope/talk", method: .post, body: #"{"on": true}"#)
            XCTAssertEqual(unknown.status, .notFound)
            XCTAssertEqual(sessions.talks.withLock { $0 }, [true, false])
        }
    }

    func testRefusalsKeepTheAPIsErrors() async throws {
        let sessions = Recorded()
        let web = try WebHarness(whep: sessions)
        try await web.test { client in
            let json = try await client.request(
                "/api/whep", method: .post, headers: ["Content-Type: application/json"], body: "{}")
            XCTAssertEqual(json.status, .unsupportedMediaType)
            let garbage = try await client.request("/api/whep", method: .post, headers: [Self.sdp], body: "hello")
            XCTAssertEqual(garbage.status, .badRequest)
            XCTAssertEqual(garbage.errorCode, "bad_request")
            let anonymous = try await client.request(
                "/api/whep", method: .post, headers: [Self.sdp], auth: false, body: Self.offer)
            XCTAssertEqual(anonymous.status, .unauthorized)
            XCTAssertEqual(sessions.offers.withLock { $0 }, ["hello"], "the anonymous offer never reached the core")
        }
        let off = try WebHarness()
        try await off.test { client in
            let refused = try await client.request("/api/whep", method: .post, headers: [Self.sdp], body: Self.offer)
            XCTAssertEqual(refused.status, .conflict, "the device's state refuses it; the server is fine")
            XCTAssertEqual(refused.errorCode, "unavailable")
        }
    }
}
