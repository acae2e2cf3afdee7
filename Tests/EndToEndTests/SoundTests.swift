import ApplianceProtocol
import Foundation
import XCTest

/// The microphone's level and sound detection in the daemon: the test tone (pipelines/sources/audio-test.gst, a sine
/// at 0.2 of full scale: -17.0 dBFS RMS, peak -14.0) is measured ten times a second from the live graph's `level`
/// element, and with `[sound] enabled` it is an event; a threshold above it makes none.
final class SoundTests: XCTestCase {
    func testTheToneIsMeasuredAndIsSoundAboveTheThreshold() throws {
        let daemon = try DaemonProcess(extra: "[sound]\nenabled = true\nthreshold_db = -20\n")
        try daemon.start()
        defer { daemon.stop() }
        // The tone is loud from the first reading, so its event may come before a subscription could: status counts it.
        XCTAssertTrue(try daemon.waitFor(20) { (try daemon.status().sound?.events ?? 0) >= 1 }, daemon.log)
        let sound = try XCTUnwrap(try daemon.status().sound)
        XCTAssertEqual(sound.levelDb ?? 0, -17.0, accuracy: 0.3)
        XCTAssertEqual(sound.peakDb ?? 0, -14.0, accuracy: 0.3)
        XCTAssertTrue(sound.active)
        XCTAssertEqual(sound.events, 1)
        let metrics = try daemon.metrics()
        XCTAssertEqual(metrics["appliance_audio_level_dbfs"]?.value() ?? 0, -17.0, accuracy: 0.3)
        XCTAssertEqual(metrics["appliance_events_total"]?.value(["kind": "sound"]), 1)
    }

    func testBelowTheThresholdTheLevelIsMeasuredAndNoEventComes() throws {
        let daemon = try DaemonProcess(extra: "[sound]\nenabled = true\nthreshold_db = -10\n")
        try daemon.start()
        defer { daemon.stop() }
        // Twenty readings (2 s, four times min_duration_s) without an event.
        XCTAssertTrue(try daemon.waitFor(10) { try daemon.status().sound?.levelDb != nil })
        let first = Date()
        XCTAssertTrue(
            try daemon.waitFor(10) {
                guard Date().timeIntervalSince(first) > 2 else { return false }
                return (try daemon.status().sound?.levelDb ?? 0) < -10
            })
        let sound = try XCTUnwrap(try daemon.status().sound)
        XCTAssertFalse(sound.active)
        XCTAssertEqual(sound.events, 0)
    }
}
