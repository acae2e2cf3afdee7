import ApplianceApp
import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Thousands of random and malformed lines from several connections while a recording runs: every line gets an
/// answer, the daemon keeps serving, and the recording completes.
final class FuzzTests: XCTestCase {
    /// A small deterministic generator, so a failure can be replayed.
    typealias SplitMix = SeededRandom

    /// A line that must be refused: random bytes, odd values in command templates, cut-off or deeply nested JSON.
    /// (No template can form a valid state-changing command.)
    static func junkLine(_ rng: inout SplitMix) -> Data {
        let templates = [
            #"{"command": %@}"#, #"{"command": "list", "args": {"page": %@}}"#,
            #"{"command": "info", "args": {"id": %@}}"#,
            #"{"command": "rename", "args": {"id": %@, "title": %@}}"#, #"{"id": %@, "command": "snapshotx"}"#,
            #"{"command": "record.start", "args": {"titel": %@}}"#, #"[%@, %@]"#, #"{"command": "status", "args": %@}"#,
        ]
        let values = [
            "null", "true", "-1", "1e308", "\"\"", "\"\\u0000\"", "{}", "[]", "\"ffff\"", "99999999999999999999",
            "\"record.stopp\"", "{\"a\": [1, {\"b\": null}]}", "\"\\ud800\"",
        ]
        switch rng.next() % 4 {
        case 0:  // random bytes, no newline
            let count = Int(rng.next() % 300)
            return Data((0..<count).map { _ in UInt8(truncatingIfNeeded: rng.next()) }.map { $0 == 10 ? 32 : $0 })
        case 1:  // a template with odd values
            var text = templates[Int(rng.next() % UInt64(templates.count))]
            while let range = text.range(of: "%@") {
                text.replaceSubrange(range, with: values[Int(rng.next() % UInt64(values.count))])
            }
            return Data(text.utf8)
        case 2:  // valid JSON cut short
            let text = #"{"id": 12, "command": "list", "args": {"page": 2, "per_page": 5}}"#
            return Data(text.utf8.prefix(Int(rng.next() % UInt64(text.utf8.count))))
        default:  // deep nesting
            let depth = Int(rng.next() % 2000)
            return Data((String(repeating: "[", count: depth) + String(repeating: "]", count: depth)).utf8)
        }
    }

    func testThousandsOfMalformedLinesWhileRecording() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        _ = try daemon.recordStart(title: "under fire")

        let socketPath = daemon.socketPath
        let answered = Locked(0)
        let failures = Locked([String]())
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            var rng = SplitMix(seed: UInt64(worker + 1) * 7919)
            do {
                let client = try ControlClient(path: socketPath, timeout: 20)
                for _ in 0..<750 {
                    var line = Self.junkLine(&rng)
                    if line.allSatisfy({ $0 == 32 || $0 == 13 }) { line = Data("x".utf8) }  // blank lines get no answer
                    line.append(10)
                    try client.send(raw: line)
                    let response = try client.readLine()
                    guard let object = try? JSONSerialization.jsonObject(with: response) as? [String: Any],
                        object["ok"] != nil
                    else {
                        failures.withLock { $0.append(String(decoding: response, as: UTF8.self)) }
                        continue
                    }
                    answered.withLock { $0 += 1 }
                }
            } catch {
                failures.withLock { $0.append("worker \(worker): \(error)") }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        XCTAssertEqual(answered.withLock { $0 }, 3000)
        XCTAssertTrue(daemon.isRunning)

        let status = try daemon.status()
        XCTAssertEqual(status.state, .recording)
        // A fast machine answers the 3,000 lines in under half a second: the clip is judged on at least 1.5 s.
        try daemon.waitUntilRecorded(1.5)
        let stop = try daemon.recordStop()
        XCTAssertEqual(stop.title, "under fire")
        let probe = try MediaProbe(stop.path)
        XCTAssertGreaterThan(try XCTUnwrap(probe.video).duration, 0.5)
        XCTAssertEqual(try probe.decodeErrors(), "")
        try probe.assertSmoothVideo(framerate: 30)
    }

    func testManyClientsAtOnce() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let socketPath = daemon.socketPath
        let ok = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            guard let client = try? ControlClient(path: socketPath, timeout: 20) else { return }
            for _ in 0..<25 {
                let command = index % 2 == 0 ? "status" : "list"
                if (try? client.call(command))?["ok"] as? Bool == true { ok.withLock { $0 += 1 } }
            }
        }
        XCTAssertEqual(ok.withLock { $0 }, 16 * 25)
    }
}

/// A lock-protected value for test workers.
final class Locked<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = NSLock()
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(&value)
    }
}
