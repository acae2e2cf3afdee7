import Foundation
import GStreamerKit
import Synchronization
import XCTest

/// The RTSP media and each WebRTC session batch the packets leaving their payloaders (`Pad.batchRTP`): rtph264pay
/// pushes one list per NAL unit (the access unit delimiter, each of x264's slices), rtpmp4gpay one buffer per AAC
/// frame, and every push costs the threads and sockets behind it a wake-up and a send. These tests pin what the
/// batching must keep: every packet, in order, unchanged; a frame whole in one push; nothing held back at the end.
final class RTPBatchTests: XCTestCase {
    override func setUp() { GStreamer.initialize() }

    struct Packet: Equatable {
        let sequence: UInt16
        let timestamp: UInt32
        let marker: Bool
    }

    /// Several slices a frame (plus the delimiter, and SPS/PPS at keyframes), the larger ones over the MTU, so split.
    static let video =
        "videotestsrc num-buffers=20 pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 ! "
        + "x264enc tune=zerolatency option-string=slices=4 key-int-max=10 bitrate=2000 ! h264parse ! "
        + "rtph264pay name=pay mtu=300 config-interval=0 seqnum-offset=0"
    static let audio =
        "audiotestsrc num-buffers=20 samplesperbuffer=1024 ! audio/x-raw,rate=48000,channels=1 ! "
        + "avenc_aac ! aacparse ! rtpmp4gpay name=pay seqnum-offset=0"

    /// Runs `description ! fakesink` to its end and returns what reached the sink, one entry per push.
    private func pushes(_ description: String, batch: ((Pad) -> Void)? = nil) throws -> [[Packet]] {
        let pipeline = Pipeline(name: "rtp-batch")
        let bin = try Bin.parse(
            description + " ! fakesink name=sink sync=false", name: "rtp", label: "test", ghostUnlinkedPads: false)
        try pipeline.add(bin)
        batch?(try XCTUnwrap(bin.element(named: "pay")?.staticPad("src")))
        let seen = Mutex<[[Packet]]>([])
        try XCTUnwrap(bin.element(named: "sink")?.staticPad("sink")).addProbe([.buffer, .bufferList]) { info in
            let packets = info.buffers.map { buffer in
                let header = buffer.bytes(upTo: 8)
                return Packet(
                    sequence: UInt16(header[2]) << 8 | UInt16(header[3]),
                    timestamp: header[4...7].reduce(0) { $0 << 8 | UInt32($1) },
                    marker: header[1] & 0x80 != 0)
            }
            seen.withLock { $0.append(packets) }
            return .ok
        }
        try pipeline.runToEnd(timeout: ClockTime(seconds: 60))
        return seen.withLock { $0 }
    }

    private func assertInOrderAndWhole(_ packets: [Packet], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(
            packets.map(\.sequence), (0..<packets.count).map { UInt16($0) }, "every packet, in order", file: file,
            line: line)
    }

    func testAFrameLeavesThePayloaderInOnePush() throws {
        let unbatched = try pushes(Self.video)
        let frames = Set(unbatched.joined().map(\.timestamp)).count
        XCTAssertEqual(frames, 20)
        XCTAssertGreaterThan(unbatched.count, frames * 2, "unbatched: a push per NAL unit (delimiter, slices)")

        let batched = try pushes(Self.video) { $0.batchRTP(perFrame: true) }
        XCTAssertEqual(batched.count, frames, "one push a frame")
        for push in batched {
            XCTAssertEqual(Set(push.map(\.timestamp)).count, 1, "a push holds one frame")
            XCTAssertEqual(
                push.map(\.marker), Array(repeating: false, count: push.count - 1) + [true], "and ends at its marker")
        }
        assertInOrderAndWhole(Array(batched.joined()))
        XCTAssertEqual(batched.joined().count, unbatched.joined().count, "no packet more or less")
    }

    func testAudioGoesAFewFramesAtATimeAndTheRestBeforeTheEnd() throws {
        let unbatched = try pushes(Self.audio)
        XCTAssertTrue(unbatched.allSatisfy { $0.count == 1 }, "unbatched: a push per AAC frame")
        XCTAssertGreaterThanOrEqual(unbatched.count, 20)

        let batched = try pushes(Self.audio) { $0.batchRTP(maxPackets: 4, perFrame: false) }
        // A serialized event (aacparse's bitrate tags) sends what is held before it, so a few pushes are shorter.
        XCTAssertTrue(batched.allSatisfy { (1...4).contains($0.count) }, "\(batched.map(\.count))")
        XCTAssertLessThanOrEqual(batched.count, unbatched.count / 2, "mostly 4 at a time: \(batched.map(\.count))")
        assertInOrderAndWhole(Array(batched.joined()))
        XCTAssertEqual(batched.joined().count, unbatched.count, "what was held at EOS went out before it")
    }
}
