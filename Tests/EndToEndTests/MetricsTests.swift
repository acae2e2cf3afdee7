import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// `ctl metrics`: Prometheus text that a real parser (prometheus_client, the Python reference client) accepts,
/// with numbers that follow what the daemon did: frames, a loop recording's seams, the recording state,
/// storage, cameras, uptime, and restarts counted across a SIGKILL.
final class MetricsTests: XCTestCase {
    /// A camera that delivers 10 frames a second where 30 are configured: its rate keeper repeats two frames in
    /// three, and says so (the cameras report, `ctl cameras`, metrics) instead of leaving the user to guess.
    func testASlowCameraCountsTheFramesRepeatedForIt() throws {
        let daemon = try DaemonProcess(
            cameras: """
                [[camera]]
                name = "slow"
                source = "pipeline"
                pipeline = "videotestsrc is-live=true pattern=ball ! video/x-raw,framerate=10/1"
                """)
        try daemon.start()
        defer { daemon.stop() }
        try daemon.waitForFrames(seconds: 2, since: try daemon.status().output.frames)
        let camera = try XCTUnwrap(try daemon.cameras().cameras.first)
        let (frames, repeated) = (try XCTUnwrap(camera.framesIn), try XCTUnwrap(camera.framesRepeated))
        XCTAssertGreaterThan(frames, 30)
        // Two of three frames out are repeats: more than half, whatever the machine's load adds.
        XCTAssertGreaterThan(Double(repeated), 0.5 * Double(frames), "\(repeated) of \(frames) repeated")
        let text = try daemon.ctl(["cameras"])
        XCTAssertTrue(text.stdout.contains("frames repeated (camera late)"), text.stdout)
        let metrics = try Self.parse(try daemon.ctl(["metrics"]))
        XCTAssertGreaterThan(metrics["appliance_camera_frames_repeated_total{camera=\"slow\"}"] ?? 0, 0)
    }

    func testMetricsFollowTheDaemonAndParseAsPrometheusText() throws {
        let daemon = try DaemonProcess(extra: "[recording]\nsegment_s = 1.0")
        try daemon.start()
        _ = try daemon.recordStart()
        // A segment's A/V offset is known once its first audio is in: wait for a reading mid-segment.
        try daemon.waitUntilElapsed(1.5)
        var recording: [String: Double] = [:]
        XCTAssertTrue(
            try daemon.waitFor(10) {
                recording = try Self.parse(try daemon.ctl(["metrics"]))
                return recording["appliance_av_offset_seconds"] != nil
            })
        XCTAssertEqual(recording["appliance_recording"], 1)
        XCTAssertEqual(recording["appliance_recorder_state{state=\"recording\"}"], 1)
        XCTAssertEqual(recording["appliance_recorder_state{state=\"idle\"}"], 0)
        XCTAssertGreaterThan(recording["appliance_recording_elapsed_seconds"] ?? 0, 0.5)
        try daemon.waitUntilElapsed(3.6)
        _ = try daemon.recordStop()

        let text = try daemon.ctl(["metrics"])
        XCTAssertEqual(text.status, 0, text.stderr)
        let m = try Self.parse(text)
        // Frames: the camera delivered, the selector passed them on, nothing was dropped.
        XCTAssertGreaterThan(m["appliance_frames_in_total{camera=\"main\"}"] ?? 0, 60)
        XCTAssertGreaterThan(m["appliance_frames_out_total"] ?? 0, 60)
        let late = try XCTUnwrap(
            m["appliance_camera_frames_repeated_total{camera=\"main\"}"], "the camera's repeats are counted")
        XCTAssertLessThanOrEqual(late, m["appliance_frames_in_total{camera=\"main\"}"] ?? 0)
        let report = try XCTUnwrap(try daemon.cameras().cameras.first)
        XCTAssertGreaterThan(report.framesIn ?? 0, 60, "frames in, in the cameras report")
        XCTAssertNotNil(report.framesRepeated, "frames repeated, in the cameras report")
        XCTAssertEqual(m["appliance_frames_dropped_total{reason=\"encoder_gap\"}"], 0)
        // Loop recording at 1 s for 3.6 s: three seams at least, each seamless.
        XCTAssertGreaterThanOrEqual(m["appliance_segment_boundaries_total"] ?? 0, 3)
        XCTAssertEqual(m["appliance_segment_boundary_missing_frames_total"], 0)
        XCTAssertEqual(m["appliance_segment_boundary_repeated_frames_total"], 0)
        XCTAssertGreaterThanOrEqual(m["appliance_recordings_finished_total"] ?? 0, 4)
        XCTAssertEqual(m["appliance_recording"], 0)
        // Storage, cameras, the daemon.
        XCTAssertGreaterThan(m["appliance_storage_free_bytes"] ?? 0, 0)
        XCTAssertEqual(m["appliance_storage_missing"], 0)
        XCTAssertEqual(m["appliance_camera_state{camera=\"main\",state=\"active\"}"], 1)
        XCTAssertEqual(m["appliance_camera_state{camera=\"main\",state=\"error\"}"], 0)
        XCTAssertEqual(m["appliance_backup_enabled"], 0)
        XCTAssertEqual(m["appliance_ready"], 1)
        XCTAssertEqual(m["appliance_stalled"], 0)
        XCTAssertGreaterThan(m["appliance_bus_turns_total"] ?? 0, 10)
        XCTAssertGreaterThan(m["appliance_uptime_seconds"] ?? 0, 3)
        XCTAssertEqual(m["appliance_starts_total"], 1)
        XCTAssertEqual(m["appliance_unclean_exits_total"], 0)
        XCTAssertEqual(
            m[
                """
                appliance_info{encoder=\"\(try daemon.status().encoder)\",\
                gstreamer=\"\(try Self.gstreamerVersion(daemon))\",version=\"\(ApplianceVersion.current)\"}
                """
            ], 1)

        // --json: the same report, typed.
        let json = try daemon.ctl(["--json", "metrics"])
        guard
            case .metrics(let report) = try ApplianceProtocol.CommandResult.decode(
                for: .metrics, from: Data(json.stdout.utf8))
        else {
            return XCTFail("metrics --json")
        }
        XCTAssertEqual(report["appliance_starts_total"]?.value(), 1)

        // Killed, then started again: two starts, one of them ended uncleanly; a clean stop is not counted.
        daemon.stop(signal: SIGKILL)
        try daemon.start()
        let afterKill = try Self.parse(try daemon.ctl(["metrics"]))
        XCTAssertEqual(afterKill["appliance_starts_total"], 2)
        XCTAssertEqual(afterKill["appliance_unclean_exits_total"], 1)
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.start()
        let afterStop = try Self.parse(try daemon.ctl(["metrics"]))
        XCTAssertEqual(afterStop["appliance_starts_total"], 3)
        XCTAssertEqual(afterStop["appliance_unclean_exits_total"], 1)
        XCTAssertEqual(daemon.stop(), 0)
    }

    static func gstreamerVersion(_ daemon: DaemonProcess) throws -> String {
        try daemon.status().gstreamerVersion
    }

    /// Parses Prometheus text with prometheus_client's parser (it refuses malformed text) into
    /// `name{label="v",…}` → value, labels sorted as the daemon writes them.
    static func parse(_ output: ProcessOutcome, file: StaticString = #filePath, line: UInt = #line) throws -> [String:
        Double]
    {
        XCTAssertEqual(output.status, 0, output.stderr, file: file, line: line)
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("metrics-\(UUID().uuidString).txt")
        try output.stdout.write(to: input, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: input) }
        let script = """
            import json, sys
            from prometheus_client.parser import text_string_to_metric_families
            out = {}
            for family in text_string_to_metric_families(open(sys.argv[1]).read()):
                for s in family.samples:
                    labels = ",".join('%s="%s"' % (k, v) for k, v in sorted(s.labels.items()))
                    out[s.name + ("{" + labels + "}" if labels else "")] = s.value
            print(json.dumps(out))
            """
        let parsed = try ProcessOutcome.run("/usr/bin/env", ["python3", "-c", script, input.path])
        XCTAssertEqual(
            parsed.status, 0, "prometheus_client refused the text: \(parsed.stderr)\n\(output.stdout)", file: file,
            line: line)
        let object = try JSONSerialization.jsonObject(with: Data(parsed.stdout.utf8)) as? [String: Double]
        return try XCTUnwrap(object, parsed.stdout)
    }
}
