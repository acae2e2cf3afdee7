import ApplianceApp
import ApplianceProtocol
import ControlSocket
import Engine
import Foundation
import TestSupport
import XCTest

/// Bad requests get an error response with a stable code; the daemon keeps serving and the recording survives.
final class BadInputTests: XCTestCase {
    private func send(_ raw: Data, to daemon: DaemonProcess) throws -> [String: Any] {
        let client = try ControlClient(path: daemon.socketPath, timeout: 10)
        try client.send(raw: raw)
        let line = try client.readLine()
        return try XCTUnwrap(
            try JSONSerialization.jsonObject(with: line) as? [String: Any], String(decoding: line, as: UTF8.self))
    }

    private func errorCode(_ response: [String: Any]) -> String? {
        XCTAssertEqual(response["ok"] as? Bool, false)
        let error = response["error"] as? [String: Any]
        XCTAssertFalse((error?["message"] as? String ?? "").isEmpty)
        return error?["code"] as? String
    }

    func testSocketErrorsGetCodesAndTheRecordingSurvives() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        _ = try daemon.recordStart(title: "survivor")

        let cases: [(String, Data, String)] = [
            ("not JSON", Data("hello\n".utf8), "bad_request"),
            ("JSON but not an object", Data("[1,2,3]\n".utf8), "bad_request"),
            ("command of the wrong type", Data(#"{"command": 5}"#.utf8 + [10]), "bad_request"),
            ("missing command", Data(#"{"id": 1}"#.utf8 + [10]), "bad_request"),
            ("unknown command", Data(#"{"id": 2, "command": "explode"}"#.utf8 + [10]), "unknown_command"),
            (
                "title of the wrong type", Data(#"{"command": "record.stop", "args": {"title": 7}}"#.utf8 + [10]),
                "bad_request"
            ),
            ("args of the wrong type", Data(#"{"command": "record.start", "args": "now"}"#.utf8 + [10]), "bad_request"),
            (
                "unknown argument", Data(#"{"command": "record.start", "args": {"titel": "x"}}"#.utf8 + [10]),
                "bad_request"
            ),
            ("invalid UTF-8", Data([0x7b, 0xff, 0xfe, 0x22, 0x7d, 0x0a]), "bad_request"),
            (
                "line over the limit",
                Data(repeating: UInt8(ascii: "a"), count: ControlServer.maxLineBytes + 10) + [10], "bad_request"
            ),
            ("record start while recording", Data(#"{"command": "record.start"}"#.utf8 + [10]), "conflict"),
        ]
        for (name, raw, code) in cases {
            XCTAssertEqual(errorCode(try send(raw, to: daemon)), code, name)
        }
        // The id is echoed on errors too.
        XCTAssertEqual(
            try send(Data(#"{"id": "abc", "command": "nope"}"#.utf8 + [10]), to: daemon)["id"] as? String, "abc")

        // Clients that vanish mid-request, and a flood of junk from several connections at once.
        for _ in 0..<20 {
            let client = try ControlClient(path: daemon.socketPath, timeout: 5)
            try client.send(raw: Data(#"{"command": "stat"#.utf8))
        }
        let socketPath = daemon.socketPath
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            guard let client = try? ControlClient(path: socketPath, timeout: 10) else { return }
            for index in 0..<200 {
                let junk = index % 2 == 0 ? "{{{\(worker)\n" : "{\"command\": \(index)}\n"
                try? client.send(raw: Data(junk.utf8))
                _ = try? client.readLine()
            }
        }

        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(try daemon.status().state, .recording)
        try daemon.waitUntilRecorded(1.5)
        let stop = try daemon.recordStop()
        let probe = try MediaProbe(stop.path)
        XCTAssertGreaterThan(try XCTUnwrap(probe.video).duration, 1.0)
        XCTAssertEqual(try probe.decodeErrors(), "")
        XCTAssertEqual(stop.title, "survivor")

        XCTAssertEqual(errorCode(try daemon.call("record.stop")), "conflict", "stop while idle")
        XCTAssertTrue(daemon.isRunning)
    }

    func testCtlFailuresExitNonZeroWithOneLine() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }

        let idleStop = try daemon.ctl(["record", "stop"])
        XCTAssertNotEqual(idleStop.status, 0)
        XCTAssertEqual(idleStop.stderr.split(separator: "\n").count, 1, idleStop.stderr)
        XCTAssertTrue(idleStop.stderr.contains("not recording"), idleStop.stderr)

        XCTAssertEqual(try daemon.ctl(["record", "start"]).status, 0)
        let second = try daemon.ctl(["--json", "record", "start"])
        XCTAssertNotEqual(second.status, 0)
        XCTAssertEqual((second.json?["error"] as? [String: Any])?["code"] as? String, "conflict", second.stdout)
        XCTAssertEqual(try daemon.ctl(["record", "stop"]).status, 0)

        let noDaemon = try ProcessOutcome.run(
            DaemonProcess.binary, ["ctl", "--socket", daemon.directory.path + "/none.sock", "status"])
        XCTAssertEqual(noDaemon.status, 2)
        XCTAssertEqual(noDaemon.stderr.split(separator: "\n").count, 1, noDaemon.stderr)
        XCTAssertTrue(noDaemon.stderr.contains("cannot connect"), noDaemon.stderr)

        let unknown = try daemon.ctl(["explode"])
        XCTAssertNotEqual(unknown.status, 0)
        XCTAssertTrue(daemon.isRunning)
    }
}
