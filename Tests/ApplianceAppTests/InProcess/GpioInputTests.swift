import ApplianceBase
import ApplianceProtocol
import Foundation
import Glibc
import Mp4
import Settings
import TestSupport
import XCTest

@testable import ApplianceApp

/// A `[[input]] kind = "gpio"` button end to end in the appliance, its chip a FIFO carrying the kernel's
/// `gpio_v2_line_event` records: decoding, software debounce, gestures and the commands they send. Gestures are
/// judged by the records' own timestamps; the test never sleeps to make one.
final class GpioInputTests: XCTestCase {
    private var directory: URL!
    private var fifo: String!

    override func setUpWithError() throws {
        directory = try TestAppliance.makeDirectory()
        fifo = directory.appendingPathComponent("gpiochip-standin").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    private func start(_ change: (inout ApplianceConfig.Input) -> Void = { _ in }) async throws -> (
        TestAppliance, Int32
    ) {
        var input = ApplianceConfig.Input()
        (input.label, input.kind, input.chip, input.line, input.debounceMs) = ("shutter", .gpio, fifo, "3", 30)
        change(&input)
        let app = try await TestAppliance(directory: directory) { $0.inputs = [input] }
        let connected = await app.events.first(within: .seconds(10)) {
            if case .inputConnected(let s) = $0 { s } else { nil }
        }
        XCTAssertEqual(connected?.device, "\(fifo!) line 3")
        XCTAssertTrue(connected?.detail?.contains("stand-in") == true, "\(String(describing: connected))")
        let writer = open(fifo, O_WRONLY | O_CLOEXEC)  // the reader has it open: this does not block
        XCTAssertGreaterThanOrEqual(writer, 0)
        return (app, writer)
    }

    /// Writes line events: (pressed, milliseconds since a base time, offset).
    private func write(_ writer: Int32, _ edges: [(Bool, UInt64)], offset: UInt32 = 3) {
        let base: UInt64 = 7_000_000_000
        var bytes: [UInt8] = []
        for (seq, (pressed, ms)) in edges.enumerated() {
            bytes += GpioLineEventBytes.record(
                rising: pressed, offset: offset, timeNs: base + ms * 1_000_000, seqno: UInt32(seq + 1))
        }
        XCTAssertEqual(bytes.withUnsafeBytes { Glibc.write(writer, $0.baseAddress, $0.count) }, bytes.count)
    }

    private func gestures(_ app: TestAppliance) -> [InputGesture] {
        app.events.all.compactMap { if case .inputGesture(let g) = $0 { g } else { nil } }
    }

    func testPressStartsPressAgainStopsABouncingPressCountsOnce() async throws {
        let (app, writer) = try await start()
        defer { close(writer) }
        // A press whose contacts bounce three times within 30 ms, held 300 ms, released with a bounce; and a
        // record of another line in between, which is not this button's.
        write(writer, [(true, 0), (false, 2), (true, 4), (false, 7), (true, 9)])
        write(writer, [(true, 100)], offset: 4)
        write(writer, [(false, 300), (true, 302), (false, 305)])
        let started = await app.events.first(within: .seconds(10)) {
            if case .recordingStarted(let s) = $0 { s } else { nil }
        }
        XCTAssertNotNil(started, "the press started a recording")

        // The second press, clean, two seconds later by the line's clock.
        write(writer, [(true, 2000), (false, 2150)])
        let stopped = await app.events.first(within: .seconds(15)) {
            if case .recordingStopped(let r) = $0 { r } else { nil }
        }
        XCTAssertNotNil(stopped, "the second press stopped it")
        // Its gesture is announced once the toggle it sent has answered: after `recording_stopped` (a run of the whole
        // suite read the list in between).
        for _ in 0..<100 where gestures(app).count < 2 { try await Task.sleep(for: .milliseconds(50)) }
        XCTAssertEqual(gestures(app).map(\.gesture), [.press, .press], "the bouncing press counted once")
        XCTAssertEqual(gestures(app).map(\.command), ["record.toggle", "record.toggle"])
        XCTAssertEqual(gestures(app).compactMap(\.error), [])
        XCTAssertEqual(app.events.all.filter { $0.name == "recording_started" }.count, 1)
        try await app.stop()
    }

    func testLongPressAndShortPressByTheirTimestamps() async throws {
        let (app, writer) = try await start {
            $0.longPressAction = .snapshot
            $0.longPressMs = 800
        }
        defer { close(writer) }
        // Held 1.5 s by the records' clock (written at once): a long press, a snapshot.
        write(writer, [(true, 0), (false, 1500)])
        let snapshot = await app.events.first(within: .seconds(10)) {
            if case .inputGesture(let g) = $0, g.gesture == .longPress { g } else { nil }
        }
        XCTAssertEqual(snapshot?.command, "snapshot")
        XCTAssertNil(snapshot?.error)
        // Held 200 ms: a press, the toggle.
        write(writer, [(true, 3000), (false, 3200)])
        let started = await app.events.first(within: .seconds(10)) {
            if case .recordingStarted(let s) = $0 { s } else { nil }
        }
        XCTAssertNotNil(started)
        XCTAssertEqual(gestures(app).map(\.gesture), [.longPress, .press])
        _ = try await app.perform(.recordStop(title: nil))
        try await app.stop()
    }

    func testAMissingChipIsAStatusLineAndTheDaemonGoesOn() async throws {
        var input = ApplianceConfig.Input()
        (input.label, input.kind, input.chip, input.line) = ("shutter", .gpio, "/dev/gpiochip97", "3")
        let app = try await TestAppliance(directory: directory) { $0.inputs = [input] }
        let missing = await app.events.first(within: .seconds(10)) {
            if case .inputMissing(let s) = $0 { s } else { nil }
        }
        XCTAssertEqual(missing?.state, .missing)
        XCTAssertEqual(missing?.detail, "no GPIO chip /dev/gpiochip97")
        guard case .status(let status) = try await app.perform(.status) else { return XCTFail("status") }
        XCTAssertEqual(status.inputs?.first?.state, .missing)
        _ = try await app.perform(.recordStart(title: nil))
        _ = try await app.perform(.recordStop(title: nil))
        try await app.stop()
    }
}
