import CGStreamer
import Foundation
import GStreamerKit
import TestSupport
import XCTest

/// The receiver and its relays run end to end in this process, so that .ci/shim-memcheck.sh runs them under
/// valgrind (issue 59, item 4): a file's frames and sound handed to appsrc targets in another pipeline, the sound's
/// target switched while it flows, the receiver stopped and freed while its targets go on.
final class ShimMemoryTests: XCTestCase {
    final class Count: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    static let soundFormat = "audio/x-raw,format=S16LE,rate=48000,channels=1,layout=interleaved"

    func testAReceiverHandsFramesAndSoundToAnotherPipelineAndLetsGoOfThem() throws {
        GStreamer.initialize()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "shim-\(UUID().uuidString.prefix(8)).mkv"
        ).path
        defer { try? FileManager.default.removeItem(atPath: file) }
        // A clip with a raw picture and raw sound (Matroska keeps both uncompressed: nothing to encode).
        let writer = Pipeline(name: "clip-writer")
        try writer.add(
            try Bin.parse(
                "videotestsrc num-buffers=15 ! video/x-raw,format=I420,width=64,height=48,framerate=15/1 ! mux. "
                    + "audiotestsrc num-buffers=15 samplesperbuffer=3200 ! \(Self.soundFormat) ! mux. "
                    + "matroskamux name=mux ! filesink location=\(file)", name: "writer", label: "test"))
        try writer.runToEnd(timeout: ClockTime(seconds: 30))

        // The live side: an appsrc for the frames and one for the sound, each counted by an appsink.
        let live = Pipeline(name: "live")
        let targets = try Bin.parse(
            "appsrc name=frames format=time is-live=true do-timestamp=true ! appsink name=frames-out sync=false "
                + "appsrc name=sound format=time is-live=true do-timestamp=true ! appsink name=sound-out sync=false",
            name: "targets", label: "test")
        try live.add(targets)
        let (frames, sound) = (
            try XCTUnwrap(targets.element(named: "frames")), try XCTUnwrap(targets.element(named: "sound"))
        )
        let (framesOut, soundOut) = (Count(), Count())
        AppSink.onNewSample(try XCTUnwrap(targets.element(named: "frames-out"))) { _ in framesOut.add() }
        AppSink.onNewSample(try XCTUnwrap(targets.element(named: "sound-out"))) { _ in soundOut.add() }
        try live.setState(.playing)
        defer { _ = try? live.setState(.null) }

        let failures = Count()
        var receiver: NetworkReceiver? = try NetworkReceiver(
            url: "file://\(file)", user: nil, password: nil, transport: .auto,
            latencyMs: 0, timeoutS: 5, target: frames
        ) { _ in failures.add() }
        receiver?.carrySound(caps: Self.soundFormat)
        try receiver?.start()
        receiver?.sendSound(to: sound)
        XCTAssertTrue(
            Self.waitFor(30) { soundOut.value >= 2 }, "sound reached its target: \(String(describing: receiver?.stats))"
        )
        receiver?.sendSound(to: nil)  // switched while it flows: dropped, then sent again
        receiver?.sendSound(to: sound)
        XCTAssertTrue(Self.waitFor(30) { receiver?.stats.frames == 15 }, "\(String(describing: receiver?.stats))")
        XCTAssertTrue(Self.waitFor(10) { framesOut.value == 15 }, "every frame reached its target: \(framesOut.value)")
        let stats = try XCTUnwrap(receiver?.stats)
        XCTAssertEqual(stats.width, 64)
        XCTAssertGreaterThan(stats.soundBuffers, 0)
        receiver?.stop()
        receiver = nil  // freed while its targets live on: nothing may touch them (or its context) any more
        XCTAssertEqual(failures.value, 0)
        let before = (framesOut.value, soundOut.value)
        Thread.sleep(forTimeInterval: 0.2)  // a late push from the freed receiver would show here (or to valgrind)
        XCTAssertEqual(framesOut.value, before.0)
        XCTAssertEqual(soundOut.value, before.1)
    }

    private static func waitFor(_ seconds: TimeInterval, _ condition: () -> Bool) -> Bool {
        Poll.until(timeout: seconds, every: 0.02, condition)
    }
}
