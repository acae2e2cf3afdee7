import ApplianceProtocol
import Foundation
import XCTest

/// Typed results and events survive the wire unchanged, with snake_case keys, ISO dates and numbers as numbers.
final class WireFormatTests: XCTestCase {
    private let created = Date(timeIntervalSince1970: 1_795_000_000)

    private func object(_ value: some Encodable) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: WireFormat.encoder.encode(value)) as? [String: Any])
    }

    private var clip: Recording {
        var row = Recording(id: "3c1eebee-0000-4000-8000-000000000001", title: "Garden, dusk 🌆", createdAt: created,
                            path: "/data/recordings/2026/11/21/3c1eebee.mp4", state: .complete)
        row.durationMs = 3000
        row.sizeBytes = 9_700_000
        row.backupState = .done
        row.locked = true
        return row
    }

    func testResultsRoundTripPerCommand() throws {
        let stopped = RecordingResult(
            id: "a", title: "t", path: "/p.mp4", thumbnail: nil, durationMs: 2933, videoFrames: 88, droppedFrames: 0,
            audioDurationMs: 2940, avOffsetMs: -20.4, sizeBytes: 1234, width: 1280, height: 720, framerate: 30,
            createdAt: created, endedAt: created.addingTimeInterval(3), stopReason: .maxDuration, startLatencyMs: 181,
            stopLatencyMs: 40)
        var measured = RecordingInfo.Measured()
        measured.durationMs = 2990
        measured.audioChannels = 2
        let cases: [(Command, CommandResult)] = [
            (.ping, .pong(Pong())),
            (.recordStart(title: nil), .recordingStarted(RecordingStarted(id: "a", title: "t", partialPath: "/p", createdAt: created))),
            (.recordStop(title: nil), .recordingStopped(stopped)),
            (.list(page: 1, perPage: 10), .list(ListResult(items: [clip], total: 1, page: 1, perPage: 10, pages: 1, elapsedMs: 0.3))),
            (.info(id: "a"), .info(RecordingInfo(recording: clip, measured: measured))),
            (.lock(id: "a"), .recording(clip)),
            (.delete(id: "a", force: false), .deleted(DeleteResult(id: "a", deletedFiles: ["/p.mp4"]))),
            (.cameras, .cameras(CamerasReport(active: "frontCam", cameras: [CameraReport(name: "frontCam", source: "v4l2", device: "/dev/video0", state: "active", detail: nil, alwaysOn: false)], devices: [DeviceInfo(name: "USB", deviceClass: "Video/Source", caps: "video/x-raw", path: nil)]))),
            (.switchCamera(.next), .switched(SwitchResult(active: "b", previous: "a", switched: true, latencyMs: 45.5))),
            (.backupStatus, .backupStatus(.off)),
            (.backupRetry(id: nil), .backupRetry(RetryResult(requeued: 2))),
        ]
        for (command, result) in cases {
            let data = try WireFormat.encoder.encode(AnyPayload(result))
            XCTAssertEqual(try CommandResult.decode(for: command, from: data), result, "\(command)")
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
        let cameras = try object(StatusReport.Live(id: "a", title: "t", elapsedMs: 5, durationMs: 4, videoFrames: 3, droppedFrames: 0, avOffsetMs: nil, partialPath: "/p"))
        XCTAssertEqual(cameras["partial_path"] as? String, "/p")
        XCTAssertEqual(try object(RecordingResult(
            id: "a", title: "t", path: "/p", thumbnail: nil, durationMs: 1, videoFrames: 1, droppedFrames: 0, audioDurationMs: nil,
            avOffsetMs: nil, sizeBytes: 1, width: 2, height: 2, framerate: 30, createdAt: created, endedAt: created,
            stopReason: .maxDuration, startLatencyMs: nil, stopLatencyMs: nil))["stop_reason"] as? String, "max_duration")
    }

    func testEventsCarryNumbersAsNumbersAndRoundTrip() throws {
        let events: [ApplianceEvent] = [
            .cameraSwitched(CameraSwitched(from: nil, to: "front", latencyMs: 45.2)),
            .backupDone(BackupDone(id: "a", remote: "2026/x.mp4", bytes: 1_073_741_824, rateKbps: 3_900_000)),
            .backupRetry(BackupRetryScheduled(id: "a", error: "HTTP 503", retryInS: 2.5)),
            .backupProgress(BackupProgress(id: "a", bytesDone: 10, bytesTotal: 20, rateKbps: 8)),
            .recordingStarted(RecordingStarted(id: "a", title: "t", partialPath: "/p", createdAt: created)),
            .deleted(ClipEvent(id: "a")), .renamed(Renamed(id: "a", title: "b")), .error(PipelineError(source: "/appliance/x", message: "m")),
            .storageMissing(StorageStatus(state: .missing, recordingsDir: "/d", missingFiles: 100_000, detail: "not mounted")),
            .ready(Ready(startupMs: 412.5)), .deviceAdded(DeviceInfo(name: "n", deviceClass: "Audio/Source", caps: "c", path: nil)),
        ]
        for event in events {
            let line = try WireFormat.line(EventRecord(event, time: created))
            let decoded = try WireFormat.decoder.decode(EventRecord.self, from: line)
            XCTAssertEqual(decoded.event, event)
            XCTAssertEqual(decoded.time, created)
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: line) as? [String: Any])
            XCTAssertEqual(object["event"] as? String, event.name)
        }
        let switched = try XCTUnwrap(try JSONSerialization.jsonObject(with: WireFormat.line(EventRecord(events[0]))) as? [String: Any])
        let data = try XCTUnwrap(switched["data"] as? [String: Any])
        XCTAssertEqual(data["latency_ms"] as? Double, 45.2)
        XCTAssertNil(data["from"], "no previous camera: absent, not an empty string")
        let done = try XCTUnwrap(try JSONSerialization.jsonObject(with: WireFormat.line(EventRecord(events[1]))) as? [String: Any])
        XCTAssertEqual((done["data"] as? [String: Any])?["bytes"] as? Int, 1_073_741_824)
    }

    func testUnknownEventsAreKeptAsTheyCame() throws {
        let line = Data(#"{"event": "shutter_pressed", "time": "2026-11-21T14:03:15.456Z", "data": {"key": "KEY_SPACE", "held_ms": 1200}}"#.utf8)
        let record = try WireFormat.decoder.decode(EventRecord.self, from: line)
        XCTAssertEqual(record.event, .other(name: "shutter_pressed", data: .object(["key": .string("KEY_SPACE"), "held_ms": .int(1200)])))
        XCTAssertEqual(record.data.objectValue?["held_ms"], .int(1200))
    }
}

/// Encodes a result as its payload, as the socket does.
private struct AnyPayload: Encodable {
    let result: CommandResult
    init(_ result: CommandResult) { self.result = result }
    func encode(to encoder: Encoder) throws { try result.payload.encode(to: encoder) }
}
