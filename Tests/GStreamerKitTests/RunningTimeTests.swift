import CGStreamer
import Foundation
import GStreamerKit
import XCTest

/// Mapping timestamps from one pipeline onto another's running time (the RTSP media, the WebRTC sessions) must not
/// read that running time while a change to PLAYING is under way: the pipeline hands its elements the clock before
/// their new base time, and a reading in between is the clock's own time, hours of uptime on a first start. Buffers
/// stamped from it waited that long in the RTSP media's sinks: the stream stalled for its clients.
final class RunningTimeTests: XCTestCase {
    override func setUp() { GStreamer.initialize() }

    func testTheRunningTimeIsReadOnlyWhilePlaying() throws {
        let pipeline = Pipeline(name: "running-time")
        let bin = try Bin.parse(
            "audiotestsrc is-live=true ! fakesink sync=true", name: "live", label: "test", ghostUnlinkedPads: false)
        try pipeline.add(bin)
        defer { _ = try? pipeline.setState(.null) }

        // The moment inside the change to PLAYING: the clock is set, the base time is not yet.
        let clock = try XCTUnwrap(gst_system_clock_obtain())
        defer { gst_object_unref(UnsafeMutableRawPointer(clock)) }
        XCTAssertNotEqual(gst_element_set_clock(pipeline.pointer, clock), 0)
        let clockTime = gst_clock_get_time(clock)
        let stale = try XCTUnwrap(pipeline.runningTimeNow, "the unguarded reading has a clock and answers")
        XCTAssertGreaterThanOrEqual(
            stale.nanoseconds, UInt64(clockTime), "it is the clock's own time: the base time is still 0")
        XCTAssertNil(pipeline.runningTimeWhilePlaying, "the guarded reading waits for PLAYING")
        XCTAssertNil(bin.runningTimeWhilePlaying)

        try pipeline.setState(.playing)
        XCTAssertEqual(pipeline.state(timeout: ClockTime(seconds: 5)).0, .playing)
        let playing = try XCTUnwrap(pipeline.runningTimeWhilePlaying)
        XCTAssertLessThan(playing.seconds, 5, "from the base time set on the way to PLAYING")
        let child = try XCTUnwrap(bin.runningTimeWhilePlaying, "a bin inside it once it is PLAYING too")
        XCTAssertLessThan(child.seconds, 5)

        try pipeline.setState(.paused)
        _ = pipeline.state(timeout: ClockTime(seconds: 5))
        XCTAssertNil(pipeline.runningTimeWhilePlaying, "a paused pipeline's running time stands still: no reading")
    }
}
