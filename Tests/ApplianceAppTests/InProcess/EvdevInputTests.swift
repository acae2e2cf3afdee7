import ApplianceBase
import ApplianceProtocol
import Foundation
import Settings
import TestSupport
import XCTest

@testable import ApplianceApp

/// `[[input]] kind = "evdev"` through the real reader, fed by a FIFO carrying real `struct input_event` records.
/// Gestures are judged by the records' own timestamps: the test never sleeps to shape one. Where a gesture waits
/// for a window to expire, a later SYN record ends it, or the daemon's own timer does (the test then only waits
/// for the event, with a generous limit).
final class EvdevInputTests: XCTestCase {
    private var test: TestAppliance!
    private var keyboard: FifoKeyboard!
    private var directory: URL!

    override func tearDown() async throws {
        keyboard?.closeWriter()
        try await test?.stop()
        test?.removeDirectory()
        keyboard = nil
        test = nil
    }

    /// An appliance with one evdev input on a FIFO (made first unless `fifoLater`).
    private func start(fifoLater: Bool = false, _ change: @escaping (inout ApplianceConfig.Input) -> Void = { _ in })
        async throws
    {
        directory = try TestAppliance.makeDirectory()
        let path = directory.appendingPathComponent("event-kbd").path
        keyboard = try FifoKeyboard(path: path, create: !fifoLater)
        test = try await TestAppliance(directory: directory) { config in
            var input = ApplianceConfig.Input()
            input.label = "shutter"
            input.device = path
            change(&input)
            config.inputs = [input]
        }
    }

    private var gestures: [InputGesture] {
        test.events.all.compactMap { if case .inputGesture(let g) = $0 { g } else { nil } }
    }

    /// Waits until `count` gestures were published; returns them all.
    private func gestures(count: Int, within timeout: Duration = .seconds(15)) async -> [InputGesture] {
        _ = await until(timeout) { [self] in gestures.count >= count }
        return gestures
    }

    /// Polls the events seen so far until `condition` holds or `timeout` passes (waiting for an event to arrive,
    /// never judging a gesture by time).
    private func until(_ timeout: Duration, _ condition: () -> Bool) async -> Bool {
        await Poll.asyncUntil(timeout: timeout.seconds, every: 0.02, condition)
    }

    private func count(_ match: (ApplianceEvent) -> Bool) -> Int { test.events.all.filter(match).count }

    private func waitFor(
        _ condition: @escaping (ApplianceEvent) -> Bool, count n: Int = 1, within timeout: Duration = .seconds(15)
    ) async -> Bool {
        await until(timeout) { [self] in count(condition) >= n }
    }

    private func inputStatus() async throws -> InputStatus? {
        guard case .status(let report) = try await test.perform(.status) else { return nil }
        return report.inputs?.first
    }

    private static func isStarted(_ e: ApplianceEvent) -> Bool { if case .recordingStarted = e { true } else { false } }
    private static func isStopped(_ e: ApplianceEvent) -> Bool { if case .recordingStopped = e { true } else { false } }
    private static func isConnected(_ e: ApplianceEvent) -> Bool { if case .inputConnected = e { true } else { false } }
    private static func isMissing(_ e: ApplianceEvent) -> Bool { if case .inputMissing = e { true } else { false } }

    func testPressStartsAndPressAgainStopsIgnoringRepeats() async throws {
        try await start()
        try await keyboard.connect()
        let connected = await test.events.first { if case .inputConnected(let s) = $0 { s } else { nil } }
        XCTAssertEqual(connected?.label, "shutter")
        XCTAssertEqual(connected?.device, keyboard.path)
        XCTAssertEqual(connected?.grabbed, nil, "no grab asked for")

        // A press held long enough to auto-repeat, another key in between: one press.
        try keyboard.gesture([
            (0, FifoKeyboard.keySpace, 1), (250, FifoKeyboard.keySpace, 2), (283, FifoKeyboard.keySpace, 2),
            (300, FifoKeyboard.keyA, 1), (310, FifoKeyboard.keyA, 0), (316, FifoKeyboard.keySpace, 2),
            (400, FifoKeyboard.keySpace, 0),
        ])
        let started = await waitFor(Self.isStarted)
        XCTAssertTrue(started, "the press started a recording")
        var seen = await gestures(count: 1)
        XCTAssertEqual(
            seen.first, InputGesture(label: "shutter", gesture: .press, action: "toggle", command: "record.toggle"))

        try keyboard.tap()
        let stopped = await waitFor(Self.isStopped)
        XCTAssertTrue(stopped, "the second press stopped it")
        seen = await gestures(count: 2)
        XCTAssertEqual(seen.map(\.gesture), [.press, .press], "repeats and the other key made no gesture")
        XCTAssertEqual(seen.map(\.error), [nil, nil])
        XCTAssertEqual(count(Self.isStarted), 1)
        let status = try await inputStatus()
        XCTAssertEqual(status?.state, .connected)
    }

    func testLongAndDoublePress() async throws {
        try await start { input in
            input.longPressAction = .snapshot
            input.doublePressAction = .stop
        }
        try await keyboard.connect()
        // Long press: the release's own time is past the threshold.
        try keyboard.tap(holdMs: 1500)
        var seen = await gestures(count: 1)
        XCTAssertEqual(seen.last?.gesture, .longPress)
        XCTAssertEqual(seen.last?.command, "snapshot")
        XCTAssertNil(seen.last?.error)

        // Long press decided by the daemon's timer while the key is still down.
        try keyboard.gesture([(0, FifoKeyboard.keySpace, 1)])
        seen = await gestures(count: 2)
        XCTAssertEqual(seen.last?.gesture, .longPress, "fired while held")
        try keyboard.gesture([(0, FifoKeyboard.keySpace, 0)])

        // Single press: the window ends with a SYN record written after it.
        try keyboard.tap(holdMs: 100, synAt: 100 + 401)
        seen = await gestures(count: 3)
        XCTAssertEqual(seen.last?.gesture, .press)
        XCTAssertEqual(seen.last?.command, "record.toggle")
        let started = await waitFor(Self.isStarted)
        XCTAssertTrue(started)

        // Double press: the second down within 400 ms of the first release.
        try keyboard.gesture([
            (0, FifoKeyboard.keySpace, 1), (100, FifoKeyboard.keySpace, 0),
            (300, FifoKeyboard.keySpace, 1), (350, FifoKeyboard.keySpace, 0),
        ])
        seen = await gestures(count: 4)
        XCTAssertEqual(seen.last?.gesture, .doublePress)
        XCTAssertEqual(seen.last?.command, "record.stop")
        XCTAssertEqual(seen.last?.action, "stop")
        let stopped = await waitFor(Self.isStopped)
        XCTAssertTrue(stopped)

        // A single press whose window the daemon's timer ends (no later record).
        try keyboard.tap(holdMs: 50)
        seen = await gestures(count: 5)
        XCTAssertEqual(seen.last?.gesture, .press)

        // A double press that is refused (stop while idle... after the toggle above started one, stop it first).
        _ = await waitFor(Self.isStarted, count: 2)
        try keyboard.gesture([
            (0, FifoKeyboard.keySpace, 1), (60, FifoKeyboard.keySpace, 0),
            (200, FifoKeyboard.keySpace, 1), (260, FifoKeyboard.keySpace, 0),
        ])
        try keyboard.gesture([
            (0, FifoKeyboard.keySpace, 1), (60, FifoKeyboard.keySpace, 0),
            (200, FifoKeyboard.keySpace, 1), (260, FifoKeyboard.keySpace, 0),
        ])
        seen = await gestures(count: 7)
        XCTAssertEqual(seen.suffix(2).map(\.gesture), [.doublePress, .doublePress])
        XCTAssertNil(seen[5].error)
        XCTAssertNotNil(seen[6].error, "stop while idle is refused, and said so in the event")
        let status = try await inputStatus()
        XCTAssertEqual(status?.state, .connected, "a refused command leaves the input working")
    }

    func testHoldRecordsWhileHeld() async throws {
        try await start { $0.action = .hold }
        try await keyboard.connect()
        try keyboard.gesture([(0, FifoKeyboard.keySpace, 1), (500, FifoKeyboard.keySpace, 2)])
        let started = await waitFor(Self.isStarted)
        XCTAssertTrue(started, "records from the press")
        var seen = await gestures(count: 1)
        XCTAssertEqual(seen.map(\.gesture), [.holdStart])
        XCTAssertEqual(seen.first?.command, "record.start")
        XCTAssertEqual(count(Self.isStopped), 0, "still held")
        try keyboard.gesture([(0, FifoKeyboard.keySpace, 0)])
        let stopped = await waitFor(Self.isStopped)
        XCTAssertTrue(stopped, "stops at the release")
        seen = await gestures(count: 2)
        XCTAssertEqual(seen.map(\.gesture), [.holdStart, .holdEnd])
        XCTAssertEqual(seen.last?.command, "record.stop")
    }

    func testGrabOnAFifoIsTolerated() async throws {
        try await start { $0.grab = true }
        let connected = await test.events.first { if case .inputConnected(let s) = $0 { s } else { nil } }
        XCTAssertEqual(connected?.grabbed, false)
        XCTAssertEqual(connected?.detail, "grab not possible: not an input device")
        let status = try await inputStatus()
        XCTAssertEqual(status?.state, .connected)
        XCTAssertEqual(status?.detail, "grab not possible: not an input device")
        try await keyboard.connect()
        try keyboard.tap()
        let started = await waitFor(Self.isStarted)
        XCTAssertTrue(started, "read anyway")
    }

    func testADeviceThatAppearsLaterAndOneThatGoesAndComesBack() async throws {
        try await start(fifoLater: true)
        let missing = await test.events.first { if case .inputMissing(let s) = $0 { s } else { nil } }
        XCTAssertEqual(missing?.state, .missing)
        XCTAssertTrue(missing?.detail?.contains("not present") ?? false, missing?.detail ?? "")
        var status = try await inputStatus()
        XCTAssertEqual(status?.state, .missing, "the daemon runs without it")

        try keyboard.make()
        let appeared = await waitFor(Self.isConnected)
        XCTAssertTrue(appeared, "picked up once the path exists")
        try await keyboard.connect()
        try keyboard.tap()
        let started = await waitFor(Self.isStarted)
        XCTAssertTrue(started)

        // The writer closes: end of file, missing, and opened again.
        keyboard.closeWriter()
        let eof = await waitFor(Self.isMissing, count: 2)
        XCTAssertTrue(eof)
        let lastMissing = test.events.all.compactMap { if case .inputMissing(let s) = $0 { s } else { nil } }.last
        XCTAssertTrue(lastMissing?.detail?.contains("end of file") ?? false, lastMissing?.detail ?? "")
        let back = await waitFor(Self.isConnected, count: 2)
        XCTAssertTrue(back)
        try await keyboard.connect()
        try keyboard.tap()
        let stopped = await waitFor(Self.isStopped)
        XCTAssertTrue(stopped, "works again after the writer came back")

        // The FIFO is removed while its writer is still open: missing; made again: works again.
        keyboard.remove()
        let removed = await waitFor(Self.isMissing, count: 3)
        XCTAssertTrue(removed)
        status = try await inputStatus()
        XCTAssertEqual(status?.state, .missing)
        keyboard.closeWriter()
        try keyboard.make()
        let again = await waitFor(Self.isConnected, count: 3)
        XCTAssertTrue(again)
        try await keyboard.connect()
        try keyboard.tap()
        let restarted = await waitFor(Self.isStarted, count: 2)
        XCTAssertTrue(restarted, "works after the FIFO was made again")
        status = try await inputStatus()
        XCTAssertEqual(status?.state, .connected)
    }
}
