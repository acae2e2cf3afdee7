import ApplianceProtocol
import Foundation
import XCTest

/// The preview branch drops frames rather than stalling the graph: a preview that takes 200 ms per frame must
/// not cost the recording a single frame.
final class PreviewTests: XCTestCase {
    func testASlowPreviewNeverStallsTheRecording() throws {
        let pipelines = FileManager.default.temporaryDirectory.appendingPathComponent(
            "pipelines-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: pipelines) }
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        try FileManager.default.copyItem(at: repo.appendingPathComponent("pipelines"), to: pipelines)
        try "identity sleep-time=200000 ! fakesink sync=false\n"
            .write(to: pipelines.appendingPathComponent("previews/slow.gst"), atomically: true, encoding: .utf8)

        let daemon = try DaemonProcess(extra: "pipelines_dir = \"\(pipelines.path)\"")
        // `extra` lands after [preview]; move the key to the top level and pick the slow preview.
        var config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        config =
            "pipelines_dir = \"\(pipelines.path)\"\n"
            + config
            .replacingOccurrences(of: "pipelines_dir = \"\(pipelines.path)\"", with: "")
            .replacingOccurrences(of: "sink = \"none\"", with: "sink = \"slow\"")
        try config.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertEqual(try daemon.status().preview, "slow")

        _ = try daemon.recordStart()
        try daemon.waitUntilRecorded(2.0)
        let stop = try daemon.recordStop()
        XCTAssertEqual(stop.droppedFrames, 0)
        let probe = try MediaProbe(stop.path)
        XCTAssertEqual(try XCTUnwrap(probe.video).duration, 2.0, accuracy: 0.2)
        try probe.assertSmoothVideo(framerate: 30)
        XCTAssertEqual(try probe.decodeErrors(), "")
    }
}
