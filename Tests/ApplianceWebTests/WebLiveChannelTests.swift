import ApplianceBase
import ApplianceProtocol
import Engine
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Settings
import XCTest

@testable import ApplianceApp
@testable import ApplianceWeb

/// With several channels, the live picture and WebRTC are per channel: `?channel=NAME` on `/live.jpg`,
/// `/live.mjpeg` and the WHEP offer picks the channel (none: the first), a session's id routes its sound, Talk and
/// end back to its channel, and a name that is no channel is a 400 that names them.
final class WebLiveChannelTests: XCTestCase {
    /// `front` (the harness's camera) and `rear`, a camera of its own.
    static func twoChannels(_ config: inout ApplianceConfig) {
        var rear = ApplianceConfig.Camera()
        (rear.name, rear.source) = ("rear", "test")
        config.cameras.append(rear)
        config.channelTables = [
            .init(
                name: "front", cameras: [config.cameras[0].name], video: config.video, trigger: "manual",
                preRecordS: 0, postRecordS: 5, audio: true),
            .init(
                name: "rear", cameras: ["rear"], video: config.video, trigger: "manual", preRecordS: 0,
                postRecordS: 5, audio: false),
        ]
    }

    /// `status.channels` for the two channels of `twoChannels`, each picture (width, height, rate) as given.
    static func statuses(front: (Int, Int, Int), rear: (Int, Int, Int)) -> [ChannelStatus] {
        [("front", "cam", front), ("rear", "rear", rear)].map { name, camera, picture in
            ChannelStatus(
                name: name, state: .idle, recordingId: nil, cameras: [camera], activeCamera: camera, encoder: "x264",
                width: picture.0, height: picture.1, framerate: picture.2)
        }
    }

    func testAnOfferNamesItsChannelAndItsIdFindsItAgain() async throws {
        let (front, rear) = (WebWHEPRouteTests.Recorded(), WebWHEPRouteTests.Recorded())
        let web = try WebHarness(
            whep: front,
            otherChannels: [.init(name: "rear", live: LiveView(fps: 5, width: 160, height: 90), webrtc: rear)],
            change: Self.twoChannels)
        let sdp = WebWHEPRouteTests.sdp
        try await web.test { client in
            let answered = try await client.request(
                "/api/whep?channel=rear&sound=off", method: .post, headers: [sdp], body: WebWHEPRouteTests.offer)
            XCTAssertEqual(answered.status, .created, answered.text)
            XCTAssertEqual(answered.header("Location"), "/api/whep/1.abc123", "the second channel's session")
            XCTAssertEqual(rear.offers.withLock { $0 }, [WebWHEPRouteTests.offer])
            XCTAssertEqual(front.offers.withLock { $0 }, [], "the first channel saw no offer")
            let sound = try await client.request(
                "/api/whep/1.abc123/sound", method: .post, headers: ["Content-Type: application/json"],
                body: #"{"on": true}"#)
            XCTAssertEqual(sound.status, .ok, sound.text)
            XCTAssertEqual(rear.sounds.withLock { $0 }, [false, true], "off at the start, then on: the rear's")
            let ended = try await client.request("/api/whep/1.abc123", method: .delete)
            XCTAssertEqual(ended.status, .ok)
            XCTAssertEqual(rear.ended.withLock { $0 }, ["abc123"])
            XCTAssertEqual(front.ended.withLock { $0 }, [])

            let first = try await client.request(
                "/api/whep", method: .post, headers: [sdp], body: WebWHEPRouteTests.offer)
            XCTAssertEqual(first.header("Location"), "/api/whep/abc123", "no channel named: the first, its own id")
            XCTAssertEqual(front.offers.withLock { $0 }.count, 1)

            let unknown = try await client.request(
                "/api/whep?channel=garden", method: .post, headers: [sdp], body: WebWHEPRouteTests.offer)
            XCTAssertEqual(unknown.status, .badRequest)
            XCTAssertTrue(unknown.text.contains("the channels are front, rear"), unknown.text)
            for id in ["7.abc123", "0.abc123", "x.abc123"] {
                let gone = try await client.request("/api/whep/\(id)", method: .delete)
                XCTAssertEqual(gone.status, .notFound, id)
            }
        }
    }

    func testEachChannelsLivePictureIsItsOwn() async throws {
        let rearLive = LiveView(fps: 5, width: 160, height: 90)
        let web = try WebHarness(
            otherChannels: [.init(name: "rear", live: rearLive, webrtc: RefusedWHEP())], change: Self.twoChannels)
        let (frontJPEG, rearJPEG): ([UInt8], [UInt8]) = ([0xFF, 0xD8, 1, 0xFF, 0xD9], [0xFF, 0xD8, 2, 0xFF, 0xD9])
        // Frames go on being handed over until the test ends: a snapshot takes the first frame after it asks.
        let feeding = Task {
            while !Task.isCancelled {
                web.live.receive(jpeg: frontJPEG, ageNanoseconds: 0)
                rearLive.receive(jpeg: rearJPEG, ageNanoseconds: 0)
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        defer { feeding.cancel() }
        try await web.test { client in
            let rear = try await client.request("/live.jpg?channel=rear")
            XCTAssertEqual(rear.status, .ok, rear.text)
            XCTAssertEqual(Array(rear.body.readableBytesView), rearJPEG)
            let front = try await client.request("/live.jpg")
            XCTAssertEqual(Array(front.body.readableBytesView), frontJPEG)
            let named = try await client.request("/live.jpg?channel=front")
            XCTAssertEqual(Array(named.body.readableBytesView), frontJPEG)
            for path in ["/live.jpg?channel=garden", "/live.mjpeg?channel=garden"] {
                let unknown = try await client.request(path)
                XCTAssertEqual(unknown.status, .badRequest, path)
                XCTAssertTrue(unknown.text.contains("the channels are front, rear"), unknown.text)
            }
        }
    }

    /// The live page is a grid with a tile per channel; the first keeps the ids the page's buttons use.
    func testTheLivePageHasATilePerChannel() throws {
        var status = WebTimelineRouteTests.status
        status.channels = Self.statuses(front: (640, 360, 30), rear: (320, 180, 30))
        let page = Pages.live(status: status, csrf: nil, webrtc: true)
        XCTAssertTrue(page.contains(#"<div class="tiles"><figure class="picture tile"><img id="live""#), page)
        XCTAssertTrue(
            page.contains(
                #"""
                <figure class="picture tile" data-channel="rear"><img src="/live.mjpeg?channel=rear" \#
                alt="rear live picture" width="320" height="180"><video muted autoplay playsinline hidden \#
                data-webrtc="on"></video><figcaption>rear</figcaption>
                """#), page)
        status.channels = []
        let single = Pages.live(status: status, csrf: nil, webrtc: true)
        XCTAssertFalse(single.contains("tiles"), "one channel: the one picture, as before channels")
        XCTAssertTrue(single.contains(#"<div class="picture"><img id="live" src="/live.mjpeg""#), single)
    }
}
