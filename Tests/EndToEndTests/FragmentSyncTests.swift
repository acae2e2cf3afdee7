import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Fragments and syncs whatever the encoder does. The appliance's x264 makes a keyframe every keyframe_interval_s
/// and no others; an encoder with ideas of its own (here x264 with its scene-cut decision left on, on the still SMPTE
/// bars with their noise patch: a keyframe every few frames) makes mp4mux start a fragment at each keyframe, but the
/// file is still synced no more than once per `sync_interval_s`, and the clip plays.
final class FragmentSyncTests: XCTestCase {
    private func record(encoder: String?, seconds: Double) throws -> (fragments: Double, syncs: Double, keyframes: Int, decodeErrors: String) {
        let daemon = try DaemonProcess(extra: encoder.map { "[video]\nencoder = \"\($0)\"" } ?? "")
        if encoder != nil {
            // The repository's fragments plus one encoder that keeps x264's scene cuts.
            let pipelines = daemon.directory.appendingPathComponent("pipelines").path
            try FileManager.default.copyItem(atPath: Self.repositoryPipelines, toPath: pipelines)
            try "x264enc tune=zerolatency speed-preset=${speed_preset} bitrate=${bitrate_kbps} key-int-max=${keyframe_frames}"
                .write(toFile: pipelines + "/encoders/x264-scenecut.gst", atomically: true, encoding: .utf8)
            daemon.environment["APPLIANCE_PIPELINES"] = pipelines
        }
        try daemon.start()
        defer { daemon.stop() }
        _ = try daemon.recordStart()
        Thread.sleep(forTimeInterval: seconds)
        let stopped = try daemon.recordStop()
        let metrics = try daemon.metrics()
        let keyframes = try ProcessOutcome.run("/usr/bin/ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                                    "packet=flags", "-of", "csv=p=0", stopped.path]).stdout
            .split(separator: "\n").filter { $0.hasPrefix("K") }.count
        return (metrics["appliance_file_fragments_total"]?.value() ?? 0, metrics["appliance_file_syncs_total"]?.value() ?? 0,
                keyframes, try MediaProbe(stopped.path).decodeErrors())
    }

    func testAKeyframeStormMakesFragmentsButNotSyncs() throws {
        let seconds = 5.0
        let storm = try record(encoder: "x264-scenecut", seconds: seconds)
        print("FragmentSyncTests: scene cuts on: \(storm.keyframes) keyframes, \(Int(storm.fragments)) fragments, \(Int(storm.syncs)) syncs in \(seconds) s")
        XCTAssertGreaterThan(storm.keyframes, 3 * Int(seconds), "x264's scene cuts on the noisy bars: more than 3 keyframes a second")
        XCTAssertGreaterThan(storm.fragments, 3 * seconds, "a fragment per keyframe")
        XCTAssertLessThanOrEqual(storm.syncs, seconds / 1.0 + 2, "no more than one sync per sync_interval_s (1 s), and the end")
        XCTAssertEqual(storm.decodeErrors, "")

        // The appliance's own encoder setting: a keyframe a second on the same picture, a fragment a second per track.
        let fixed = try record(encoder: nil, seconds: seconds)
        print("FragmentSyncTests: appliance x264: \(fixed.keyframes) keyframes, \(Int(fixed.fragments)) fragments, \(Int(fixed.syncs)) syncs in \(seconds) s")
        XCTAssertLessThanOrEqual(fixed.keyframes, Int(seconds) + 2, "keyframe_interval_s = 1 and no scene cuts")
        XCTAssertLessThanOrEqual(fixed.fragments, 2 * (seconds + 2), "a video and an audio fragment a second")
        XCTAssertEqual(fixed.decodeErrors, "")
    }

    static var repositoryPipelines: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("pipelines").path
    }
}
