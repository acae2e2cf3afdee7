import ApplianceProtocol
import Foundation
import XCTest

/// Typed results and events survive the wire unchanged, with snake_case keys, ISO dates and numbers as numbers.
final class WireFormatTests: XCTestCase {
    private let created = Date(timeIntervalSince1970: 1_795_000_000)

    private func object(_ value: some Encodable) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: WireFormat.encoder.encode(value)) as? [String: Any])
    }

    private var clip: Recording { WireExamples.clip }

    func testResultsRoundTripPerCommand() throws {
        for name in Command.Name.allCases {
            for (command, result) in WireExamples.commands(name) {
                let data = try WireFormat.encoder.encode(AnyPayload(result))
                XCTAssertEqual(try CommandResult.decode(for: command, from: data), result, "\(command)")
                let line = ResponseLine.success(id: .int(7), result: AnyPayload(result))
                XCTAssertEqual(
                    try ResponseLine.decode(line, for: command).get(), result, "\(command) in a response line")
            }
        }
    }

    func testKeysAndValuesOnTheWire() throws {
        let row = try object(clip)
        XCTAssertEqual(row["created_at"] as? String, "2026-11-18T11:06:40.000Z")
        XCTAssertEqual(row["duration_ms"] as? Int, 3000)
        XCTAssertEqual(row["backup_state"] as? String, "done")
        XCTAssertNil(row["thumbnail"], "absent values are omitted")
        let info = try object(RecordingInfo(recording: clip, measured: RecordingInfo.Measured()))
        XCTAssertEqual(info["id"] as? String, clip.id, "info is flat: the recording's fields beside measured")
        XCTAssertNotNil(info["measured"] as? [String: Any])
        let cameras = try object(
            StatusReport.Live(
                id: "a", title: "t", elapsedMs: 5, durationMs: 4, videoFrames: 3, droppedFrames: 0, avOffsetMs: nil,
                partialPath: "/p"))
        XCTAssertEqual(cameras["partial_path"] as? String, "/p")
        XCTAssertEqual(
            try object(
                RecordingResult(
                    id: "a", title: "t", path: "/p", thumbnail: nil, durationMs: 1, videoFrames: 1, droppedFrames: 0,
                    audioDurationMs: nil,
                    avOffsetMs: nil, sizeBytes: 1, width: 2, height: 2, framerate: 30, createdAt: created,
                    endedAt: created,
                    stopReason: .maxDuration, startLatencyMs: nil, stopLatencyMs: nil))["stop_reason"] as? String,
            "max_duration")
    }

    func testEventsCarryNumbersAsNumbersAndRoundTrip() throws {
        let events = ApplianceEvent.Kind.allCases.map(WireExamples.event)
        XCTAssertEqual(events.map(\.kind), ApplianceEvent.Kind.allCases)
        for event in events {
            let line = try WireFormat.line(EventRecord(event, time: created))
            let decoded = try WireFormat.decoder.decode(EventRecord.self, from: line)
            XCTAssertEqual(decoded.event, event)
            XCTAssertEqual(decoded.time, created)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: line) as? [String: Any])
            XCTAssertEqual(object["event"] as? String, event.name)
        }
        let switched = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: WireFormat.line(EventRecord(WireExamples.event(.cameraSwitched))))
                as? [String: Any])
        let data = try XCTUnwrap(switched["data"] as? [String: Any])
        XCTAssertEqual(data["latency_ms"] as? Double, 45.2)
        XCTAssertNil(data["from"], "no previous camera: absent, not an empty string")
        let done = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: WireFormat.line(EventRecord(WireExamples.event(.backupDone))))
                as? [String: Any])
        XCTAssertEqual((done["data"] as? [String: Any])?["bytes"] as? Int, 1_073_741_824)
    }

    func testUnknownEventsAreAnErrorToTypedReadersAndKeptAsTheyCameForGenericOnes() throws {
        let line = Data(
            #"""
            {"event": "shutter_pressed", "time": "2026-11-21T14:03:15.456Z", \#
            "data": {"key": "KEY_SPACE", "held_ms": 1200}}
            """#.utf8)
        XCTAssertThrowsError(try WireFormat.decoder.decode(EventRecord.self, from: line)) { error in
            XCTAssertTrue("\(error)".contains("unknown event \"shutter_pressed\""), "\(error)")
        }
        let generic = try WireFormat.decoder.decode(EventLine.self, from: line)
        XCTAssertEqual(generic.event, "shutter_pressed")
        XCTAssertEqual(generic.data.objectValue?["held_ms"], .int(1200))
        let known = try WireFormat.decoder.decode(
            EventLine.self, from: WireFormat.line(EventRecord(.deleted(ClipEvent(id: "a")), time: created)))
        XCTAssertEqual(known, EventLine(event: "deleted", time: created, data: .object(["id": .string("a")])))
    }

    func testEveryEventKindHasItsOwnWireName() {
        let names = ApplianceEvent.Kind.allCases.map(\.rawValue)
        XCTAssertEqual(names.count, Set(names).count)
        for name in names { XCTAssertTrue(name.allSatisfy { $0.isLowercase || $0 == "_" }, name) }
    }
}

/// Encodes a result as its payload, as the socket does.
private struct AnyPayload: Encodable {
    let result: CommandResult
    init(_ result: CommandResult) { self.result = result }
    func encode(to encoder: Encoder) throws { try result.payload.encode(to: encoder) }
}
