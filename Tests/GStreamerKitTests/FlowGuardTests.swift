import Foundation
import GStreamerKit
import XCTest

/// A bin behind a flow guard fails alone: the source in front of it keeps pushing (its tee's other branch sees every
/// buffer) and the guard keeps what the bin returned. Without the guard the same failure ends the whole stream.
final class FlowGuardTests: XCTestCase {
    override func setUp() { GStreamer.initialize() }

    /// videotestsrc (60) ! tee ! queue ! [identity error-after=10 ! fakesink] and tee ! queue ! appsink.
    private func run(guarded: Bool) async throws -> (received: Int, guardedFlow: String?, errors: [String]) {
        let pipeline = Pipeline(name: "guard-test")
        let source = try Element.make("videotestsrc", name: "src")
        source.set("num-buffers", int: 60)
        let tee = try Element.make("tee", name: "tee")
        let failingQueue = try Element.make("queue", name: "q1")
        let failing = try Bin.parse("identity name=failer error-after=10 ! fakesink", name: "failing", label: "test")
        let queue = try Element.make("queue", name: "q2")
        let sink = try Element.make("appsink", name: "sink")
        sink.set("sync", false)
        try pipeline.add([source, tee, failingQueue, failing, queue, sink])
        try Element.link([source, tee, failingQueue, failing])
        try Element.link([tee, queue, sink])
        if guarded { XCTAssertTrue(failing.staticPad("sink")!.guardFlow()) }
        XCTAssertFalse(source.staticPad("src")!.guardFlow(), "only a sink ghost pad takes a guard")
        let bus = pipeline.makeBusReader()
        bus.start()
        try pipeline.setState(.playing)
        var received = 0
        while AppSink.pull(sink, timeout: ClockTime(seconds: 5)) != nil { received += 1 }
        var errors: [String] = []
        for await message in bus.messages {
            if case .error(let error) = message { errors.append(error.element) }
            if case .endOfStream = message { break }
            if errors.count > 1 { break }
        }
        let flow = failing.staticPad("sink")!.guardedFlow
        try pipeline.setState(.null)
        bus.stop()
        return (received, flow, errors)
    }

    func testAFailingBinBehindAGuardStopsNothingElse() async throws {
        let guarded = try await run(guarded: true)
        XCTAssertEqual(guarded.received, 60, "the other branch saw the whole stream")
        XCTAssertEqual(guarded.guardedFlow, "error")
        XCTAssertEqual(guarded.errors, ["/guard-test/failing/failer"], "only the failing element's own error")
        let unguarded = try await run(guarded: false)
        XCTAssertLessThan(unguarded.received, 60, "without the guard the error stops the source")
        XCTAssertNil(unguarded.guardedFlow)
    }
}
