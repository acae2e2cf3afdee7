import ApplianceApp
import ApplianceProtocol
import ButtonsAndLights
import Foundation
import TestSupport
import XCTest

/// The real daemon with an `[[input]] kind = "evdev"` whose device is a FIFO carrying real `struct input_event`
/// records: a key press starts a recording, another stops it, and `ctl status --json` shows the input. A bad
/// `[[input]]` stops `appliance run` with a one-line error naming the key.
final class InputTests: XCTestCase {
    private func record(ms: Int64, type: UInt16, code: UInt16, value: Int32) -> Data {
        InputEventRecord.encoded(ms: ms, type: type, code: code, value: value)
    }

    /// KEY_RECORD (167) down and up 80 ms later, each followed by a SYN_REPORT, in one write.
    private func tap(_ fd: Int32, at ms: Int64) {
        let data =
            record(ms: ms, type: 1, code: 167, value: 1) + record(ms: ms, type: 0, code: 0, value: 0)
            + record(ms: ms + 80, type: 1, code: 167, value: 0) + record(ms: ms + 80, type: 0, code: 0, value: 0)
        XCTAssertEqual(data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }, 96)
    }

    func testAKeyPressStartsAndStopsARecording() throws {
        let daemon = try DaemonProcess()
        let fifo = daemon.directory.appendingPathComponent("remote-event-kbd").path
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        try daemon.appendConfig(
            """
            [[input]]
            label = "remote"
            kind = "evdev"
            device = "\(fifo)"
            key = "KEY_RECORD"
            grab = true
            """)
        try daemon.start()
        defer { daemon.stop() }

        // The daemon opened the FIFO for reading, so a writer can open it.
        var fd: Int32 = -1
        XCTAssertTrue(
            daemon.waitFor(10) {
                fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                return fd >= 0
            }, daemon.log)
        defer { close(fd) }

        let shown = try daemon.ctl(["--json", "status"])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        let status = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(shown.stdout.utf8)) as? [String: Any])
        let input = try XCTUnwrap((status["inputs"] as? [[String: Any]])?.first, shown.stdout)
        XCTAssertEqual(input["label"] as? String, "remote")
        XCTAssertEqual(input["kind"] as? String, "evdev")
        XCTAssertEqual(input["device"] as? String, fifo)
        XCTAssertEqual(input["state"] as? String, "connected")
        XCTAssertEqual(input["grabbed"] as? Bool, false)
        XCTAssertEqual(input["detail"] as? String, "grab not possible: not an input device")

        tap(fd, at: 5_000_000)
        XCTAssertTrue(try daemon.waitFor(15) { try daemon.status().state == .recording }, daemon.log)
        tap(fd, at: 5_010_000)
        XCTAssertTrue(try daemon.waitFor(15) { try daemon.status().state == .idle }, daemon.log)
        XCTAssertEqual(daemon.recordings().count, 1)
        XCTAssertTrue(daemon.log.contains("input 'remote': press → record.toggle"), daemon.log)
        XCTAssertTrue(daemon.isRunning)
    }

    func testABadInputTableStopsTheStartNamingTheKey() throws {
        let daemon = try DaemonProcess(
            extra: """
                [[input]]
                kind = "evdev"
                device = "/dev/input/event0"
                key = "KEY_SPACEBAR"
                """)
        let result = try ProcessOutcome.run(
            DaemonProcess.binary, ["run", "--config", daemon.configPath, "--socket", daemon.socketPath],
            timeout: 30)
        XCTAssertNotEqual(result.status, 0)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertTrue(lines.last?.hasPrefix("appliance: ") ?? false, result.stderr)
        XCTAssertTrue(lines.last?.contains("input[0].key") ?? false, result.stderr)
        XCTAssertTrue(lines.last?.contains("KEY_SPACEBAR") ?? false, result.stderr)
    }
}
