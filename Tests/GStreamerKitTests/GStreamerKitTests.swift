import Foundation
import GStreamerKit
import TestSupport
import XCTest

final class GStreamerKitTests: XCTestCase {
    override func setUp() { GStreamer.initialize() }

    func testUnknownElementErrorNamesTheFactory() {
        XCTAssertThrowsError(try Element.make("nosuchelement", name: "x")) { error in
            XCTAssertTrue("\(error)".contains("nosuchelement"), "\(error)")
        }
        XCTAssertTrue(GStreamer.hasElement("x264enc"))
        XCTAssertFalse(GStreamer.hasElement("nosuchelement"))
    }

    func testPropertiesAreTypedAndUnknownOnesAreErrors() throws {
        let queue = try Element.make("queue", name: "q")
        queue.set("max-size-buffers", uint: 7)
        XCTAssertEqual(queue.get("max-size-buffers"), "7")
        try queue.set("leaky", string: "downstream")
        XCTAssertEqual(queue.get("leaky"), "downstream")
        XCTAssertThrowsError(try queue.set("no-such-property", string: "1")) { error in
            XCTAssertEqual((error as? GStreamerError)?.element, "q")
        }
        XCTAssertNil(queue.get("no-such-property"))
    }

    func testParseErrorCarriesTheLabelAndParserMessage() {
        XCTAssertThrowsError(try Bin.parse("videotestsrc ! nosuchelement", name: "b", label: "sources/broken.gst")) {
            error in
            let e = error as? GStreamerError
            XCTAssertEqual(e?.element, "sources/broken.gst")
            XCTAssertTrue(e?.message.contains("nosuchelement") ?? false, "\(error)")
        }
    }

    func testBufferProbeSeesEveryBufferAndCanDrop() async throws {
        let pipeline = Pipeline(name: "probe-test")
        let source = try Element.make("videotestsrc", name: "src")
        source.set("num-buffers", int: 20)
        let sink = try Element.make("appsink", name: "sink")
        sink.set("sync", false)
        try pipeline.add([source, sink])
        try source.link(sink)
        let counter = Counter()
        source.staticPad("src")!.addProbe(.buffer) { info in
            guard let buffer = info.buffer else { return .ok }
            let n = counter.increment()
            XCTAssertNotEqual(buffer.pts, UInt64.max)
            return n % 2 == 0 ? .drop : .ok
        }
        let bus = pipeline.makeBusReader()
        bus.start()
        try pipeline.setState(.playing)
        var received = 0
        while AppSink.pull(sink, timeout: ClockTime(seconds: 5)) != nil { received += 1 }
        var sawEOS = false
        for await message in bus.messages {
            if case .endOfStream = message {
                sawEOS = true
                break
            }
        }
        try pipeline.setState(.null)
        bus.stop()
        XCTAssertTrue(sawEOS)
        XCTAssertEqual(counter.value, 20)
        XCTAssertEqual(received, 10, "every second buffer dropped")
    }

    func testRemovingAProbeTwiceFromTwoThreadsIsHarmless() throws {
        let source = try Element.make("videotestsrc", name: "src")
        let pad = source.staticPad("src")!
        for _ in 0..<200 {
            let probe = pad.addProbe(.buffer) { _ in .ok }
            DispatchQueue.concurrentPerform(iterations: 4) { _ in probe.remove() }
            probe.remove()
        }
        // A probe removed once and a new one added: removing the old one again leaves the new one in place.
        let old = pad.addProbe(.buffer) { _ in .ok }
        old.remove()
        let counter = Counter()
        let kept = pad.addProbe(.buffer) { _ in
            _ = counter.increment()
            return .ok
        }
        old.remove()
        let pipeline = Pipeline(name: "probe-twice")
        source.set("num-buffers", int: 3)
        let sink = try Element.make("fakesink", name: "sink")
        try pipeline.add([source, sink])
        try source.link(sink)
        try pipeline.setState(.playing)
        Poll.until(timeout: 5, every: 0.01) { counter.value >= 3 }
        try pipeline.setState(.null)
        kept.remove()
        XCTAssertEqual(counter.value, 3)
    }

    func testBusDeliversErrorsWithTheElementPath() async throws {
        let pipeline = Pipeline(name: "error-test")
        let bin = try Bin.parse(
            "filesrc name=reader location=/nonexistent/file ! fakesink", name: "inner", label: "test",
            ghostUnlinkedPads: false)
        try pipeline.add(bin)
        let bus = pipeline.makeBusReader()
        bus.start()
        _ = try? pipeline.setState(.playing)
        var error: GStreamerError?
        for await message in bus.messages {
            if case .error(let e) = message {
                error = e
                break
            }
        }
        _ = try? pipeline.setState(.null)
        bus.stop()
        let e = try XCTUnwrap(error)
        XCTAssertEqual(e.element, "/error-test/inner/reader")
        XCTAssertFalse(e.message.isEmpty)
        XCTAssertNotNil(e.debug)
    }

    func testJPEGFromASampleIsScaledToFit() throws {
        let pipeline = Pipeline(name: "jpeg-test")
        let bin = try Bin.parse(
            "videotestsrc num-buffers=1 ! video/x-raw,format=I420,width=640,height=480 ! appsink name=sink",
            name: "b", label: "test", ghostUnlinkedPads: false)
        try pipeline.add(bin)
        try pipeline.setState(.playing)
        defer { _ = try? pipeline.setState(.null) }
        let sample = try XCTUnwrap(AppSink.pull(pipeline.element(named: "sink")!, timeout: ClockTime(seconds: 5)))
        XCTAssertEqual(sample.caps?.int("width"), 640)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("kit-\(UUID()).jpg").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let size = try sample.writeJPEG(to: path, maxWidth: 100, maxHeight: 100)
        XCTAssertEqual(size.width, 100)
        XCTAssertEqual(size.height, 74, "480 × 100/640 = 75, rounded down to even")
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(Array(data.prefix(2)), [0xFF, 0xD8], "JPEG SOI marker")
        XCTAssertEqual(Array(data.suffix(2)), [0xFF, 0xD9], "JPEG EOI marker")
        XCTAssertThrowsError(try sample.writeJPEG(to: "/nonexistent-dir/x.jpg"))
    }
}

/// A thread-safe counter for probe callbacks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() -> Int {
        lock.lock()
        defer { lock.unlock() }
        count += 1
        return count
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}

/// Pre-record relies on this GStreamer behaviour: when a blocking probe is removed, probes added while a buffer
/// was held are run on that buffer too (gstpad.c: "probe list changed, restarting").
final class BlockingProbeTests: XCTestCase {
    func testProbesAddedWhileBlockedSeeTheHeldBuffer() throws {
        GStreamer.initialize()
        let pipeline = Pipeline(name: "block-test")
        let source = try Element.make("videotestsrc", name: "src")
        source.set("num-buffers", int: 5)
        let sink = try Element.make("appsink", name: "sink")
        sink.set("sync", false)
        try pipeline.add([source, sink])
        try source.link(sink)
        let pad = source.staticPad("src")!
        let blocked = Counter()
        let hold = pad.addProbe([.block, .buffer]) { _ in
            _ = blocked.increment()
            return .ok
        }
        try pipeline.setState(.playing)
        defer { _ = try? pipeline.setState(.null) }
        Poll.until(timeout: 5, every: 0.01) { blocked.value > 0 }
        XCTAssertEqual(blocked.value, 1, "the first buffer is held")

        let seen = Counter()
        pad.addProbe(.buffer) { info in
            if info.buffer != nil { _ = seen.increment() }
            return seen.value == 1 ? .drop : .ok
        }
        hold.remove()
        var received = 0
        while AppSink.pull(sink, timeout: ClockTime(seconds: 5)) != nil { received += 1 }
        XCTAssertEqual(seen.value, 5, "the held buffer went through the probe added while it was held")
        XCTAssertEqual(received, 4, "and that probe could drop it")
    }
}
