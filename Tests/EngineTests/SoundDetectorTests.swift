import MotionAndSound
import XCTest

@testable import Engine

/// The sound detector on level sequences as GStreamer's `level` gives them (one RMS value per 100 ms interval).
final class SoundDetectorTests: XCTestCase {
    /// Feeds `levels` (dBFS) at 10 intervals a second from t = 0; returns every transition.
    private func run(_ levels: [Double], settings: SoundDetector.Settings = .init()) -> (
        SoundDetector, [MotionDetector.Transition]
    ) {
        var detector = SoundDetector(settings: settings)
        let transitions = levels.enumerated().compactMap {
            detector.observe(rmsDb: $0.element, at: Double($0.offset) / 10)
        }
        return (detector, transitions)
    }

    func testALoudSecondIsOneEventFromItsStartEndingAfterTheRelease() {
        // Quiet 1 s, loud 1 s (peaking at -12), quiet 3 s.
        let levels =
            Array(repeating: -60.0, count: 10) + [-25, -20, -12, -20, -25, -25, -25, -25, -25, -25]
            + Array(repeating: -60.0, count: 30)
        var detector = SoundDetector()
        var transitions: [MotionDetector.Transition] = []
        var peakDuringEvent: Double?
        for (n, level) in levels.enumerated() {
            if let t = detector.observe(rmsDb: level, at: Double(n) / 10) { transitions.append(t) }
            if detector.active { peakDuringEvent = detector.peakDb }
        }
        XCTAssertEqual(transitions, [.started(at: 1.0), .ended(at: 1.9)])
        XCTAssertEqual(peakDuringEvent, -12, "the loudest interval of the event, its first ones included")
        XCTAssertNil(detector.peakDb)
    }

    func testClicksAHumAndSilenceMakeNoEvent() {
        XCTAssertEqual(run([-60, -5, -60, -60, -5, -60, -60, -60, -60, -60]).1, [], "two clicks")
        XCTAssertEqual(run(Array(repeating: -35.0, count: 100)).1, [], "a hum below the threshold")
        XCTAssertEqual(
            run(Array(repeating: -Double.infinity, count: 20) + [.nan, .nan]).1, [],
            "digital silence, and levels that are no number")
    }

    func testShortGapsKeepARunAndLongOnesBreakIt() {
        // Loud 0.3 s, quiet 0.1 s, loud 0.3 s: one run of 0.7 s (an event). Then loud 0.3, quiet 0.5, loud 0.3: none.
        XCTAssertEqual(
            run([-20, -20, -20, -60, -20, -20, -20] + Array(repeating: -60.0, count: 30)).1,
            [.started(at: 0), .ended(at: 0.6)])
        XCTAssertEqual(
            run([-20, -20, -20, -60, -60, -60, -60, -60, -20, -20, -20] + Array(repeating: -60.0, count: 30)).1, [])
    }

    func testTheThresholdIsConfigurable() {
        var settings = SoundDetector.Settings()
        settings.thresholdDb = -40
        XCTAssertEqual(run(Array(repeating: -35.0, count: 10), settings: settings).1, [.started(at: 0)])
    }
}

/// The `level` element's messages as the bus reader gives them (the structure's text), read into readings.
final class SoundTapTests: XCTestCase {
    static let stereo =
        "level, endtime=(guint64)200000000, timestamp=(guint64)100000000, stream-time=(guint64)100000000, "
            + """
            running-time=(guint64)100000000, duration=(guint64)100000000, rms=(GValueArray)< -24.5, \
            -4.9489804397817929 >, 
            """
        + "peak=(GValueArray)< -20, -1.9386641491007353 >, decay=(GValueArray)< -20, -1.9386641491007353 >;"

    func testTheLoudestChannelIsTheReadingAndSilenceReadsTheFloor() {
        let tap = SoundTap(detecting: false)
        tap.receive(levelFields: Self.stereo)
        XCTAssertEqual(tap.current.latest?.rmsDb ?? 0, -4.949, accuracy: 0.001)
        XCTAssertEqual(tap.current.latest?.peakDb ?? 0, -1.939, accuracy: 0.001)
        XCTAssertEqual(tap.status.levelDb, -4.9)
        tap.receive(levelFields: "level, rms=(GValueArray)< -inf, -inf >, peak=(GValueArray)< -inf, -inf >;")
        XCTAssertEqual(tap.current.latest?.rmsDb, SoundTap.floorDb)
        XCTAssertEqual(tap.status.levelDb, -120)
    }

    func testMessagesWithoutLevelsAreIgnored() {
        let tap = SoundTap(detecting: false)
        tap.receive(levelFields: "level, endtime=(guint64)0;")
        tap.receive(levelFields: "level, rms=(GValueArray)< nonsense >, peak=(GValueArray)< >;")
        XCTAssertNil(tap.current.latest)
        XCTAssertNil(tap.status.levelDb)
    }
}
