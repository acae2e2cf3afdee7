import ApplianceBase
import ApplianceProtocol
import Engine
import Foundation
import TestSupport
import XCTest

@testable import ApplianceApp

/// Scrubbing previews written while recording, in process on the live test sources: a clip's pack holds a 160 px
/// JPEG for its first moment and then one per interval up to its end; each loop segment gets its own; a clip with
/// pre-roll has previews of its pre-roll; deleting the clip deletes them; the catalog finds the preview of a moment.
final class ScrubPreviewTests: XCTestCase {
    private var directory: URL!

    override func setUp() async throws { directory = try TestAppliance.makeDirectory() }
    override func tearDown() async throws { try? FileManager.default.removeItem(at: directory) }

    /// Records `seconds` of video, or with `preRoll` `seconds` after the request (the video written includes the
    /// pre-roll).
    private func record(_ appliance: TestAppliance, seconds: Double, preRoll: Bool = false) async throws
        -> RecordingResult
    {
        _ = try await appliance.perform(.recordStart(title: nil))
        if preRoll {
            try await appliance.waitUntilElapsed(seconds)
        } else {
            try await appliance.waitUntilRecorded(seconds)
        }
        guard case .recordingStopped(let result) = try await appliance.perform(.recordStop(title: nil)) else {
            throw XCTSkip("no result")
        }
        return result
    }

    private func offsets(_ appliance: TestAppliance, _ id: String) -> [Double] {
        ScrubPack.entries(path: appliance.appliance.data.scrubPath(id: id)).map { Double($0.offsetMs) / 1000 }
    }

    func testAClipHasAPreviewForItsFirstMomentAndEachIntervalAndLosesThemWithIt() async throws {
        let appliance = try await TestAppliance(directory: directory) { config in
            config.thumbnail.scrubEveryS = 1
            config.cameras[0].pattern = "ball"
        }
        let clip = try await record(appliance, seconds: 4.5)
        let offsets = offsets(appliance, clip.id)
        let length = Double(clip.durationMs) / 1000
        XCTAssertEqual(offsets.first ?? -1, 0, accuracy: 0.001, "the first moment")
        XCTAssertEqual(
            Set(zip(offsets.dropFirst(2), offsets.dropFirst()).map { ($0 - $1).rounded() }), [1],
            "one a second: \(offsets)")
        XCTAssertGreaterThanOrEqual(offsets.count, Int(length) - 1, "\(offsets) over \(length) s")
        XCTAssertLessThanOrEqual(offsets.last ?? 99, length + 1)

        let path = appliance.appliance.data.scrubPath(id: clip.id)
        let picture = directory.appendingPathComponent("preview.jpg").path
        let entry = try XCTUnwrap(ScrubPack.entries(path: path).last)
        try XCTUnwrap(ScrubPack.jpeg(path: path, entry: entry)).write(to: URL(fileURLWithPath: picture))
        let probe = try ProcessOutcome.run(
            "/usr/bin/ffprobe",
            ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", picture])
        XCTAssertEqual(
            probe.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "mjpeg,160,90",
            "a 160 px JPEG of the 640x360 picture")

        let catalog = MediaCatalog(
            library: appliance.appliance.dispatcher.clips.library, data: appliance.appliance.data, longestFileS: 70)
        let row = try await catalog.recording(id: clip.id)
        let start = try XCTUnwrap(row?.mediaStart)
        let found = try await catalog.scrubJPEG(at: start.addingTimeInterval(2.5))
        XCTAssertEqual(found?.recordingId, clip.id)
        XCTAssertEqual(
            found.map { $0.takenAt.timeIntervalSince(start) } ?? -1, 2, accuracy: 0.6,
            "the preview taken at or before 2.5 s")
        let previews = try await catalog.scrubPreviews(id: clip.id)
        XCTAssertEqual(previews.map(\.offsetS), offsets.filter { $0 <= length })

        _ = try await appliance.perform(.delete(id: clip.id, force: false))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path), "deleted with its clip")
        try await appliance.stop()
    }

    func testEachLoopSegmentHasItsOwnPreviews() async throws {
        let appliance = try await TestAppliance(directory: directory) { config in
            config.thumbnail.scrubEveryS = 0.5
            config.recording.segmentS = 2
        }
        _ = try await appliance.perform(.recordStart(title: nil))
        func closed() -> [RecordingResult] {
            appliance.events.all.compactMap { if case .segmentClosed(let r) = $0 { r } else { nil } }
        }
        await Poll.asyncUntil(timeout: 60) { closed().count >= 3 }
        _ = try await appliance.perform(.recordStop(title: nil))
        for segment in closed().prefix(3) {
            let offsets = offsets(appliance, segment.id)
            XCTAssertEqual(
                offsets.first ?? -1, 0, accuracy: 0.001,
                "segment \(segment.segment ?? 0) from its first moment: \(offsets)")
            XCTAssertGreaterThanOrEqual(offsets.count, 4, "2 s at one per 0.5 s: \(offsets)")
            XCTAssertLessThan(offsets.last ?? 99, 2.0, "nothing from the next segment: \(offsets)")
        }
        try await appliance.stop()
    }

    func testAClipWithPreRollHasPreviewsOfItsPreRoll() async throws {
        let appliance = try await TestAppliance(directory: directory) { config in
            config.thumbnail.scrubEveryS = 0.5
            config.recording.preRecordS = 2
        }
        try await appliance.waitForFrames(seconds: 3)  // the pre-roll window fills
        let clip = try await record(appliance, seconds: 1.5, preRoll: true)
        let offsets = offsets(appliance, clip.id)
        let length = Double(clip.durationMs) / 1000
        XCTAssertGreaterThan(length, 2, "the clip holds pre-roll")
        XCTAssertEqual(offsets.first ?? -1, 0, accuracy: 0.001)
        XCTAssertLessThan(offsets.dropFirst().first ?? 99, 0.6, "previews from the start of the pre-roll: \(offsets)")
        XCTAssertGreaterThanOrEqual(offsets.count, Int(length * 2) - 1, "\(offsets) over \(length) s")
        try await appliance.stop()
    }
}
