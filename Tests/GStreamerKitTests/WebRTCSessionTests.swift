import Foundation
import GStreamerKit
import Synchronization
import TestSupport
import XCTest

/// A WebRTC viewer's session fed as the live feed feeds it: its pipeline's bus, which nobody reads, keeps nothing and
/// leaks nothing.
/// A bus keeps every message posted to it until it is popped; the session's webrtcbin and its thirty-odd elements post
/// their state changes, and each new segment's caps a stream-start, so an unread bus grew for as long as a viewer
/// watched (about 1 MB an hour in the soak).
final class WebRTCSessionTests: XCTestCase {
    /// An offer as a browser makes one (H.264 packetization-mode 1 and Opus, bundled, receive only); its fingerprint
    /// is never checked, since no browser connects.
    static let offer = [
        "v=0", "o=- 1 2 IN IP4 127.0.0.1", "s=-", "t=0 0", "a=group:BUNDLE 0 1",
        "m=video 9 UDP/TLS/RTP/SAVPF 102", "c=IN IP4 0.0.0.0", "a=mid:0", "a=recvonly", "a=rtcp-mux",
        "a=ice-ufrag:abcd", "a=ice-pwd:abcdefghijklmnopqrstuvwx",
        """
        a=fingerprint:sha-256 \
        00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF
        """,
        "a=setup:actpass", "a=rtpmap:102 H264/90000",
        "a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f",
        "m=audio 9 UDP/TLS/RTP/SAVPF 111", "c=IN IP4 0.0.0.0", "a=mid:1", "a=recvonly", "a=rtcp-mux",
        "a=ice-ufrag:abcd", "a=ice-pwd:abcdefghijklmnopqrstuvwx",
        """
        a=fingerprint:sha-256 \
        00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF
        """,
        "a=setup:actpass", "a=rtpmap:111 opus/48000/2", "",
    ].joined(separator: "\r\n")

    func testTheSessionBusKeepsNoMessageWhileItIsFedAcrossSegments() throws {
        let session = try WebRTCSession(offer: Self.offer, audio: true, stun: nil) { _ in }
        defer { session.stop() }
        XCTAssertTrue(session.answer.contains("m=video") && session.answer.contains("m=audio"), session.answer)

        // Three "segments": the caps are set afresh at each, as the live feed does when the recording moves on.
        for _ in 0..<3 {
            XCTAssertGreaterThanOrEqual(try feed(session, frames: 15), 15, "frames went into the session")
        }
        XCTAssertTrue(
            session.releasesBusMessages(), "a message posted on the bus nobody reads is neither kept there nor leaked")
    }

    /// Encodes a test picture and tone and pushes them into `session` from pad probes until `frames` video buffers
    /// went in (or 20 s passed); returns how many did.
    private func feed(_ session: WebRTCSession, frames: Int) throws -> Int {
        let pipeline = Pipeline(name: "webrtc-feed")
        let bin = try Bin.parse(
            """
            videotestsrc is-live=true ! video/x-raw,width=320,height=240,framerate=15/1 ! x264enc tune=zerolatency \
            speed-preset=ultrafast key-int-max=5 
            """
                + """
                ! h264parse config-interval=-1 ! video/x-h264,stream-format=byte-stream,alignment=au ! fakesink \
                name=video-out sync=false 
                """
                    + """
                    audiotestsrc is-live=true ! audio/x-raw,rate=48000,channels=2 ! avenc_aac ! aacparse ! fakesink \
                    name=audio-out sync=false
                    """,
            name: "feed", label: "test", ghostUnlinkedPads: false)
        try pipeline.add(bin)
        let pushed = Mutex(0)
        for name in ["video", "audio"] {
            let pad = try XCTUnwrap(pipeline.element(named: "\(name)-out")?.staticPad("sink"))
            let capsSet = Mutex(false)
            pad.addProbe(.buffer) { info in
                if !capsSet.withLock({ set in
                    defer { set = true }
                    return set
                }), let caps = pad.currentCaps {
                    session.setCaps(caps, for: name)
                }
                if let buffer = info.buffer {
                    session.push(buffer, runningTime: info.runningTime(buffer.pts), to: name)
                    if name == "video" { pushed.withLock { $0 += 1 } }
                }
                return .ok
            }
        }
        try pipeline.setState(.playing)
        Poll.until(timeout: 20) { pushed.withLock { $0 } >= frames }
        _ = try? pipeline.setState(.null)
        return pushed.withLock { $0 }
    }
}
