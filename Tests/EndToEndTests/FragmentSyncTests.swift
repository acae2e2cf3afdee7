import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Fragments and syncs whatever the encoder does. The appliance's x264 makes a keyframe every keyframe_interval_s
/// and no others; an encoder with ideas of its own (here x264 with its scene-cut decision left on, on the still SMPTE
/// bars with their noise patch: a keyframe every few frames) would make mp4mux start a fragment at each keyframe,
/// but its extra keyframes go into the file as ordinary frames (KeyframePacer), so the file still gets no more than
/// a video and an audio fragment, and one sync, per `sync_interval_s`, and the clip plays.
final class FragmentSyncTests: XCTestCase {
    private struct Outcome {
        var fragments, syncs, unindexed: Double
        var keyframesInFile: Int
        var decodeErrors: String
    }

    private func record(encoder: String?, seconds: Double) throws -> Outcome {
        let daemon = try DaemonProcess(extra: encoder.map { "[video]\nencoder = \"\($0)\"" } ?? "")
        if encoder != nil {
            // The repository's fragments plus one encoder that keeps x264's scene cuts.
            let pipelines = daemon.directory.appendingPathComponent("pipelines").path
            try FileManager.default.copyItem(atPath: Self.repositoryPipelines, toPath: pipelines)
            try """
            x264enc tune=zerolatency speed-preset=${speed_preset} bitrate=${bitrate_kbps} \
            key-int-max=${keyframe_frames}
            """
            .write(toFile: pipelines + "/encoders/x264-scenecut.gst", atomically: true, encoding: .utf8)
            daemon.environment["APPLIANCE_PIPELINES"] = pipelines
        }
        try daemon.start()
        defer { daemon.stop() }
        _ = try daemon.recordStart()
        try daemon.waitUntilRecorded(seconds)
        let stopped = try daemon.recordStop()
        let metrics = try daemon.metrics()
        let keyframes = try Self.indexedKeyframes(stopped.path)
        func value(_ name: String) -> Double { metrics[name]?.value() ?? 0 }
        return Outcome(
            fragments: value("appliance_file_fragments_total"), syncs: value("appliance_file_syncs_total"),
            unindexed: value("appliance_file_keyframes_unindexed_total"), keyframesInFile: keyframes,
            decodeErrors: try MediaProbe(stopped.path).decodeErrors())
    }

    func testAKeyframeStormMakesNoMoreFragmentsNorSyncs() throws {
        let seconds = 5.0
        let storm = try record(encoder: "x264-scenecut", seconds: seconds)
        print(
            """
            FragmentSyncTests: scene cuts on: \(Int(storm.unindexed)) keyframes written as ordinary frames, \
            \(storm.keyframesInFile) 
            """
                + "indexed, \(Int(storm.fragments)) fragments, \(Int(storm.syncs)) syncs in \(seconds) s")
        XCTAssertGreaterThan(
            storm.unindexed, 2 * seconds, "x264's scene cuts on the noisy bars: several keyframes a second")
        XCTAssertLessThanOrEqual(
            storm.keyframesInFile, Int(seconds) + 2, "one indexed keyframe per sync_interval_s (1 s)")
        XCTAssertLessThanOrEqual(
            storm.fragments, 2 * (seconds + 2), "a video and an audio fragment per sync_interval_s")
        XCTAssertLessThanOrEqual(storm.syncs, seconds + 2, "one sync per sync_interval_s, and the end")
        XCTAssertEqual(storm.decodeErrors, "")

        // The appliance's own encoder setting: a keyframe a second on the same picture, none left out.
        let fixed = try record(encoder: nil, seconds: seconds)
        print(
            """
            FragmentSyncTests: the default encoder: \(fixed.keyframesInFile) keyframes, \(Int(fixed.fragments)) \
            fragments, \(Int(fixed.syncs)) syncs in \(seconds) s
            """
        )
        XCTAssertEqual(fixed.unindexed, 0)
        XCTAssertLessThanOrEqual(fixed.keyframesInFile, Int(seconds) + 2, "keyframe_interval_s = 1 and no scene cuts")
        XCTAssertLessThanOrEqual(fixed.fragments, 2 * (seconds + 2), "a video and an audio fragment a second")
        XCTAssertEqual(fixed.decodeErrors, "")
    }

    /// The video track's keyframes as the file's index lists them (its `stss`). (ffprobe's K flag marks every IDR
    /// frame it parses, listed or not.)
    static func indexedKeyframes(_ path: String) throws -> Int {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let layout = try Mp4Layout(path)
        let moovStart = Int(layout.atoms.dropLast().reduce(Int64(0)) { $0 + $1.size })
        XCTAssertEqual(layout.atoms.last?.type, "moov")
        let moov = data[moovStart...]
        let traks = moov.ranges(of: Data("trak".utf8)).map(\.lowerBound) + [moov.endIndex]
        for (start, end) in zip(traks, traks.dropFirst()) where moov[start..<end].range(of: Data("vide".utf8)) != nil {
            guard let stss = moov[start..<end].range(of: Data("stss".utf8)) else { return 0 }
            return Int(moov[(stss.upperBound + 4)..<(stss.upperBound + 8)].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        return 0
    }

    static var repositoryPipelines: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
            .appendingPathComponent("pipelines").path
    }
}
