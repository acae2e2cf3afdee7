import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import Settings
import XCTest

@testable import ButtonsAndLights

/// The gesture recognizer, the software debouncer and the input_event decoder, on synthetic times (no clocks).
final class GestureTests: XCTestCase {
    private let ms: UInt64 = 1_000_000

    private func down(_ t: UInt64) -> ButtonEdge { ButtonEdge(pressed: true, time: t * ms) }
    private func up(_ t: UInt64) -> ButtonEdge { ButtonEdge(pressed: false, time: t * ms) }

    private func recognizer(hold: Bool = false, long: UInt64? = nil, double: UInt64? = nil) -> GestureRecognizer {
        GestureRecognizer(
            rules: .init(hold: hold, longPress: long.map { $0 * ms }, doublePress: double.map { $0 * ms }))
    }

    // MARK: - Plain press

    func testPlainPressFiresOnTheDown() {
        var r = recognizer()
        XCTAssertEqual(r.feed(down(1000)), [.press], "no long or double press: the press is the down, no waiting")
        XCTAssertNil(r.nextDeadline)
        XCTAssertEqual(r.feed(up(1050)), [])
        XCTAssertEqual(r.feed(down(1100)), [.press])
        XCTAssertEqual(r.feed(up(5000)), [], "a long hold is still one press when no long press is configured")
    }

    func testReleaseWithoutPressAndDuplicatesAreIgnored() {
        var r = recognizer()
        XCTAssertEqual(r.feed(up(10)), [], "a release without a press")
        XCTAssertEqual(r.feed(down(20)), [.press])
        XCTAssertEqual(r.feed(down(30)), [], "a second down without a release")
        XCTAssertEqual(r.feed(up(40)), [])
        XCTAssertEqual(r.feed(up(50)), [])
        XCTAssertEqual(r.feed(down(60)), [.press])
    }

    func testTimeGoingBackwardsIsTakenAsNow() {
        var r = recognizer(long: 1000)
        XCTAssertEqual(r.feed(down(5000)), [])
        XCTAssertEqual(r.feed(up(100)), [.press], "an earlier release is taken as now: a short press")
        XCTAssertEqual(r.now, 5000 * ms)
        XCTAssertEqual(r.advance(to: 0), [])
    }

    // MARK: - Hold

    func testHoldStartsOnDownAndEndsOnUp() {
        var r = recognizer(hold: true)
        XCTAssertEqual(r.feed(down(0)), [.holdStart])
        XCTAssertNil(r.nextDeadline, "a hold has no deadline")
        XCTAssertEqual(r.advance(to: 60_000 * ms), [])
        XCTAssertEqual(r.feed(down(60_001)), [], "still held")
        XCTAssertEqual(r.feed(up(60_002)), [.holdEnd])
        XCTAssertEqual(r.feed(up(60_003)), [], "a release without a press")
        XCTAssertEqual(r.feed(down(60_004)), [.holdStart])
    }

    func testDisconnectEndsAHold() {
        var r = recognizer(hold: true)
        XCTAssertEqual(r.feed(down(0)), [.holdStart])
        XCTAssertEqual(r.disconnect(), [.holdEnd], "nobody can release a vanished button")
        XCTAssertEqual(r.disconnect(), [])
        XCTAssertEqual(r.feed(down(10)), [.holdStart])
    }

    // MARK: - Long press

    func testLongPressFiresAtTheDeadlineWhileHeld() {
        var r = recognizer(long: 1000)
        XCTAssertEqual(r.feed(down(0)), [], "undecided until released or held long enough")
        XCTAssertEqual(r.nextDeadline, 1000 * ms)
        XCTAssertEqual(r.advance(to: 999 * ms), [])
        XCTAssertEqual(r.advance(to: 1000 * ms), [.longPress], "held exactly long_press_ms")
        XCTAssertTrue(r.isDown)
        XCTAssertNil(r.nextDeadline)
        XCTAssertEqual(r.feed(up(3000)), [], "the release only ends it")
        XCTAssertFalse(r.isDown)
    }

    func testLongPressFiresOnAReleasePastTheDeadline() {
        var r = recognizer(long: 1000)
        XCTAssertEqual(r.feed(down(0)), [])
        XCTAssertEqual(r.feed(up(1500)), [.longPress], "the deadline expired before the release: once, not twice")
        XCTAssertEqual(r.feed(down(2000)), [])
        XCTAssertEqual(r.feed(up(3000)), [.longPress], "a release at exactly the threshold is a long press")
    }

    func testShortHoldIsAPressAtTheRelease() {
        var r = recognizer(long: 1000)
        XCTAssertEqual(r.feed(down(0)), [])
        XCTAssertEqual(r.feed(up(999)), [.press])
        XCTAssertNil(r.nextDeadline)
    }

    // MARK: - Double press

    func testDoublePressFiresOnTheSecondDown() {
        var r = recognizer(double: 400)
        XCTAssertEqual(r.feed(down(0)), [])
        XCTAssertEqual(r.feed(up(100)), [], "a candidate first press")
        XCTAssertEqual(r.nextDeadline, 500 * ms)
        XCTAssertEqual(r.feed(down(300)), [.doublePress])
        XCTAssertEqual(r.feed(up(350)), [])
        XCTAssertNil(r.nextDeadline)
    }

    func testSecondDownAtTheWindowsEndStillCounts() {
        var r = recognizer(double: 400)
        _ = r.feed(down(0))
        _ = r.feed(up(100))
        XCTAssertEqual(r.feed(down(500)), [.doublePress])
    }

    func testSinglePressFiresWhenTheWindowExpires() {
        var r = recognizer(double: 400)
        _ = r.feed(down(0))
        XCTAssertEqual(r.feed(up(100)), [])
        XCTAssertEqual(r.advance(to: 499 * ms), [])
        XCTAssertEqual(r.advance(to: 500 * ms), [.press])
        XCTAssertNil(r.nextDeadline)
    }

    func testALateSecondDownIsAPressThenANewPress() {
        var r = recognizer(double: 400)
        _ = r.feed(down(0))
        _ = r.feed(up(100))
        XCTAssertEqual(r.feed(down(501)), [.press], "the window expired first, before the down is processed")
        XCTAssertEqual(r.feed(up(550)), [])
        XCTAssertEqual(r.advance(to: 950 * ms), [.press])
    }

    func testTripleTapIsADoubleThenAFreshCandidate() {
        var r = recognizer(double: 400)
        _ = r.feed(down(0))
        _ = r.feed(up(50))
        XCTAssertEqual(r.feed(down(100)), [.doublePress])
        XCTAssertEqual(r.feed(up(150)), [])
        XCTAssertEqual(r.feed(down(200)), [])
        XCTAssertEqual(r.feed(up(250)), [])
        XCTAssertEqual(r.advance(to: 650 * ms), [.press])
    }

    func testDisconnectFiresAWaitingPressAndDropsAHalfPress() {
        var r = recognizer(double: 400)
        _ = r.feed(down(0))
        _ = r.feed(up(50))
        XCTAssertEqual(r.disconnect(), [.press])
        _ = r.feed(down(100))
        XCTAssertEqual(r.disconnect(), [], "an undecided press is dropped")
    }

    // MARK: - Long and double together

    func testLongAndDoubleTogether() {
        var r = recognizer(long: 1000, double: 400)
        XCTAssertEqual(r.feed(down(0)), [])
        XCTAssertEqual(r.advance(to: 1000 * ms), [.longPress])
        XCTAssertEqual(r.feed(up(1200)), [])
        XCTAssertNil(r.nextDeadline, "no double-press window after a long press")

        XCTAssertEqual(r.feed(down(10_000)), [])
        XCTAssertEqual(r.feed(up(10_100)), [])
        XCTAssertEqual(r.feed(down(10_300)), [.doublePress], "fires on the down, not after a long-press wait")
        XCTAssertEqual(r.feed(up(12_000)), [], "the second press's hold is spent")

        XCTAssertEqual(r.feed(down(20_000)), [])
        XCTAssertEqual(r.feed(up(20_100)), [])
        XCTAssertEqual(r.advance(to: 20_500 * ms), [.press])
    }

    func testAnEdgeExpiresEarlierDeadlinesFirst() {
        var r = recognizer(long: 1000, double: 400)
        _ = r.feed(down(0))
        _ = r.feed(up(100))
        XCTAssertEqual(r.feed(down(2000)), [.press], "the first press's window ended at 500")
        XCTAssertEqual(r.feed(up(3500)), [.longPress])
    }

    // MARK: - Debouncer

    func testDebouncerPassesALevelThatHolds() {
        var d = Debouncer(debounce: 20 * ms)
        XCTAssertEqual(d.feed(down(100)), [])
        XCTAssertEqual(d.nextDeadline, 120 * ms)
        XCTAssertEqual(d.advance(to: 119 * ms), [])
        XCTAssertEqual(d.advance(to: 120 * ms), [ButtonEdge(pressed: true, time: 120 * ms)], "stamped when it settled")
        XCTAssertNil(d.nextDeadline)
        XCTAssertEqual(d.feed(up(300)), [])
        XCTAssertEqual(d.feed(up(305)), [], "the same level again keeps counting from its first time")
        XCTAssertEqual(d.advance(to: 320 * ms), [ButtonEdge(pressed: false, time: 320 * ms)])
    }

    func testDebouncerDropsBounces() {
        var d = Debouncer(debounce: 20 * ms)
        XCTAssertEqual(d.feed(down(100)), [])
        XCTAssertEqual(d.feed(up(103)), [], "bounced back before it counted")
        XCTAssertNil(d.nextDeadline)
        XCTAssertEqual(d.feed(down(105)), [])
        XCTAssertEqual(d.feed(up(110)), [])
        XCTAssertEqual(d.feed(down(112)), [])
        XCTAssertEqual(
            d.feed(up(200)), [ButtonEdge(pressed: true, time: 132 * ms)], "the press settled at 132, before this edge")
        XCTAssertEqual(d.advance(to: 220 * ms), [ButtonEdge(pressed: false, time: 220 * ms)])
        XCTAssertFalse(d.stable)
    }

    func testDebouncerIgnoresAReleaseWhileReleased() {
        var d = Debouncer(debounce: 20 * ms)
        XCTAssertEqual(d.feed(up(10)), [])
        XCTAssertNil(d.nextDeadline)
    }

    func testZeroDebouncePassesChangesOnly() {
        var d = Debouncer(debounce: 0)
        XCTAssertEqual(d.feed(down(1)), [down(1)])
        XCTAssertEqual(d.feed(down(2)), [])
        XCTAssertEqual(d.feed(up(3)), [up(3)])
    }

    func testDebouncedEdgesKeepAHoldsLength() {
        var d = Debouncer(debounce: 20 * ms)
        var r = recognizer(long: 1000)
        var gestures: [InputGesture.Gesture] = []
        for edge in [down(0), up(2), down(4), up(990), down(992), up(1500)] {
            for settled in d.feed(edge) { gestures += r.feed(settled) }
        }
        for settled in d.advance(to: 2000 * ms) { gestures += r.feed(settled) }
        XCTAssertEqual(gestures, [.longPress], "down settled at 24, up at 1520: a hold of 1496 ms")
    }

    /// Edges through the reader's feed (debouncer, then recognizer): deadlines due before an edge expire first,
    /// as the reader's loop does; then everything due by `end`.
    private func debounced(_ edges: [ButtonEdge], debounce: UInt64, long: UInt64, double: UInt64, end: UInt64)
        -> [InputGesture.Gesture]
    {
        var feed = GestureFeed(
            recognizer: recognizer(long: long, double: double), debounce: debounce * ms, label: "test",
            logger: Logger(label: "test"))
        var gestures: [InputGesture.Gesture] = []
        for edge in edges {
            gestures += feed.expire(until: edge.time)
            gestures += feed.feed(edge)
        }
        return gestures + feed.expire(until: end * ms)
    }

    /// What the lab's GPIO test once read as a defect: a long press released and pressed again within the debounce
    /// period, then released and tapped: the short release is a bounce, so the line was held on, and the taps are
    /// the long press's tail and one press. A finger's pause between them makes them a double press.
    func testAReleaseShorterThanTheDebounceIsNoRelease() {
        let tooSoon = [down(0), up(1200), down(1210), up(1510), down(1810), up(2110)]
        XCTAssertEqual(debounced(tooSoon, debounce: 30, long: 800, double: 1500, end: 5000), [.longPress, .press])
        let aFingersPause = [down(0), up(1200), down(1500), up(1800), down(2100), up(2400)]
        XCTAssertEqual(
            debounced(aFingersPause, debounce: 30, long: 800, double: 1500, end: 5000), [.longPress, .doublePress])
    }

    // MARK: - input_event decoding

    /// A `struct input_event` as 64-bit Linux lays it out, written field by field (not with the decoder's code).
    static func record(seconds: Int64, micros: Int64, type: UInt16, code: UInt16, value: Int32) -> Data {
        InputEventRecord.encoded(seconds: seconds, micros: micros, type: type, code: code, value: value)
    }

    private func decode(_ decoder: inout InputEventDecoder, _ data: Data) -> ButtonEdge? {
        data.withUnsafeBytes { decoder.edge($0) }
    }

    func testDecoderReadsTheKernelLayout() {
        let data = Self.record(seconds: 12, micros: 345_678, type: 1, code: 57, value: 1)
        XCTAssertEqual(data.count, 24)
        let event = data.withUnsafeBytes { InputEventDecoder.event($0) }
        XCTAssertEqual(event, .init(time: 12_345_678_000, type: 1, code: 57, value: 1))
        var decoder = InputEventDecoder(keyCode: 57)
        XCTAssertEqual(decode(&decoder, data), ButtonEdge(pressed: true, time: 12_345_678_000))
        XCTAssertEqual(
            decode(&decoder, Self.record(seconds: 13, micros: 0, type: 1, code: 57, value: 0)),
            ButtonEdge(pressed: false, time: 13_000_000_000))
    }

    func testDecoderDropsRepeatsOtherKeysAndOtherTypes() {
        var decoder = InputEventDecoder(keyCode: 57)
        XCTAssertNil(decode(&decoder, Self.record(seconds: 1, micros: 0, type: 1, code: 57, value: 2)), "auto-repeat")
        XCTAssertNil(decode(&decoder, Self.record(seconds: 1, micros: 0, type: 1, code: 30, value: 1)), "another key")
        XCTAssertNil(decode(&decoder, Self.record(seconds: 1, micros: 0, type: 0, code: 0, value: 0)), "EV_SYN")
        XCTAssertNil(
            decode(&decoder, Self.record(seconds: 1, micros: 0, type: 4, code: 4, value: 57)), "EV_MSC scan code")
        XCTAssertNil(
            decode(&decoder, Self.record(seconds: 1, micros: 0, type: 2, code: 57, value: 1)),
            "EV_REL with the same code")
        XCTAssertNil(Data(count: 10).withUnsafeBytes { InputEventDecoder.event($0) }, "a short record")
    }

    func testDecoderTracksHeldKeysForTheGrab() {
        var decoder = InputEventDecoder(keyCode: 57)
        var bitmap = [UInt8](repeating: 0, count: 96)
        bitmap[28 / 8] |= 1 << (28 % 8)  // KEY_ENTER held at open
        decoder.setHeld(bitmap: bitmap)
        XCTAssertEqual(decoder.held, [28])
        _ = decode(&decoder, Self.record(seconds: 1, micros: 0, type: 1, code: 30, value: 1))
        XCTAssertEqual(decoder.held, [28, 30])
        _ = decode(&decoder, Self.record(seconds: 1, micros: 0, type: 1, code: 30, value: 2))
        XCTAssertEqual(decoder.held, [28, 30], "a repeat changes nothing")
        _ = decode(&decoder, Self.record(seconds: 1, micros: 0, type: 1, code: 28, value: 0))
        _ = decode(&decoder, Self.record(seconds: 1, micros: 0, type: 1, code: 30, value: 0))
        XCTAssertTrue(decoder.held.isEmpty)
    }

    func testNegativeTimesCountAsZero() {
        let event = Self.record(seconds: -5, micros: 0, type: 1, code: 57, value: 1).withUnsafeBytes {
            InputEventDecoder.event($0)
        }
        XCTAssertEqual(event?.time, 0)
    }

    func testActionsMapToCommands() {
        var input = ApplianceConfig.Input()
        input.longPressAction = .snapshot
        input.doublePressAction = .nextCamera
        XCTAssertEqual(input.command(for: .press).command, .recordToggle(title: nil))
        XCTAssertEqual(input.command(for: .longPress).command, .snapshot())
        XCTAssertEqual(input.command(for: .doublePress).command, .switchCamera(.next(channel: nil)))
        XCTAssertEqual(input.command(for: .holdStart).command, .recordStart(title: nil))
        XCTAssertEqual(input.command(for: .holdEnd).command, .recordStop(title: nil))
        XCTAssertEqual(ApplianceConfig.InputAction.protect.command(), .protect(before: 10, after: 10))
        XCTAssertEqual(ApplianceConfig.InputAction.stop.command(), .recordStop(title: nil))
        XCTAssertEqual(input.gestureRules, .init(hold: false, longPress: 1000 * ms, doublePress: 400 * ms))
    }

    /// A button that names a channel acts on that channel alone; protecting stays every channel's.
    func testAButtonThatNamesAChannelActsOnIt() {
        var input = ApplianceConfig.Input()
        (input.channel, input.longPressAction, input.doublePressAction) = ("rear", .snapshot, .nextCamera)
        XCTAssertEqual(input.command(for: .press).command, .recordToggle(title: nil, channel: "rear"))
        XCTAssertEqual(input.command(for: .longPress).command, .snapshot(channel: "rear"))
        XCTAssertEqual(input.command(for: .doublePress).command, .switchCamera(.next(channel: "rear")))
        XCTAssertEqual(input.command(for: .holdStart).command, .recordStart(title: nil, channel: "rear"))
        XCTAssertEqual(input.command(for: .holdEnd).command, .recordStop(title: nil, channel: "rear"))
        input.action = .protect
        XCTAssertEqual(input.command(for: .press).command, .protect(before: 10, after: 10))
    }
}
