import ApplianceBase
import ApplianceProtocol
import Foundation
import Mp4
import TestSupport
import XCTest

@testable import ApplianceApp

/// The range video over real loop segments (2 s each, a moving ball and a tone): its bytes, written out as a
/// download would be, decode in ffmpeg without an error; its pictures are the segments' pictures, frame for frame
/// and in order; video and sound timestamps rise evenly across every file boundary; a range inside the recording
/// starts at the keyframe before it and ends with it.
final class RangeVideoTests: XCTestCase {
    private var directory: URL!

    override func setUp() async throws { directory = try TestAppliance.makeDirectory() }
    override func tearDown() async throws { try? FileManager.default.removeItem(at: directory) }

    /// An appliance (stopped) that recorded 2 s loop segments of the moving ball, and its segments, oldest first.
    private func recordedSegments() async throws -> (TestAppliance, [Recording]) {
        let appliance = try await TestAppliance(directory: directory) { config in
            config.recording.segmentS = 2
            config.cameras[0].pattern = "ball"
        }
        let segments = try await recordSegments(appliance)
        try await appliance.stop()
        return (appliance, segments)
    }

    /// Four whole segments of one loop recording and the end of the fifth, oldest first.
    private func recordSegments(_ appliance: TestAppliance) async throws -> [Recording] {
        _ = try await appliance.perform(.recordStart(title: "range"))
        func closed() -> Int {
            appliance.events.all.filter { if case .segmentClosed = $0 { true } else { false } }.count
        }
        await Poll.asyncUntil(timeout: 60) { closed() >= 4 }
        XCTAssertGreaterThanOrEqual(closed(), 4, "four segments closed")
        _ = try await appliance.perform(.recordStop(title: nil))
        _ = await appliance.events.first(within: .seconds(20)) { event -> Bool? in
            if case .recordingStopped = event { true } else { nil }
        }
        let library = appliance.appliance.dispatcher.clips.library
        var recordings: [Recording] = []
        for event in appliance.events.all {
            switch event {
            case .segmentClosed(let r), .recordingStopped(let r):
                if let recording = try await library.fetch(id: r.id) { recordings.append(recording) }
            default: continue
            }
        }
        return recordings.sorted { $0.createdAt < $1.createdAt }
    }

    private func catalog(_ appliance: TestAppliance) -> MediaCatalog {
        MediaCatalog(
            library: appliance.appliance.dispatcher.clips.library, data: appliance.appliance.data, longestFileS: 70)
    }

    /// The video's bytes in a file, part after part, as the web server sends them.
    private func write(_ video: RangeVideo) throws -> String {
        let path = directory.appendingPathComponent("range-\(UUID().uuidString.prefix(6)).mp4").path
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let out = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        defer { try? out.close() }
        for part in video.parts {
            switch part {
            case .bytes(let data): try out.write(contentsOf: data)
            case .file(let source, let offset, let length):
                let input = try XCTUnwrap(FileHandle(forReadingAtPath: source))
                try input.seek(toOffset: UInt64(offset))
                try out.write(contentsOf: try XCTUnwrap(try input.read(upToCount: Int(length))))
                try input.close()
            }
        }
        XCTAssertEqual(Int64(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? -1), video.size)
        return path
    }

    private static func run(_ arguments: [String]) throws -> String {
        let result = try ProcessOutcome.run("/usr/bin/ffmpeg", arguments, timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout
    }

    /// The checksums of the decoded pictures, in order.
    private static func pictureSums(_ path: String) throws -> [String] {
        try run(["-v", "error", "-i", path, "-map", "0:v", "-f", "framemd5", "-"]).split(separator: "\n")
            .filter { !$0.hasPrefix("#") }.compactMap {
                $0.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) }
            }
    }

    /// Packet times of one stream, in seconds.
    private static func packetTimes(_ path: String, stream: String) throws -> [Double] {
        let result = try ProcessOutcome.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-select_streams", stream, "-show_entries", "packet=pts_time",
                "-of", "csv=p=0", path,
            ], timeout: 120)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.split(separator: "\n").compactMap { Double($0) }.sorted()
    }

    func testAWholeRecordingIsOneVideoOfItsSegmentsFramesWithEvenTimestamps() async throws {
        let (appliance, segments) = try await recordedSegments()
        XCTAssertGreaterThanOrEqual(segments.count, 5)
        let first = try XCTUnwrap(segments.first?.mediaStart)
        let lastEnd = try XCTUnwrap(segments.last?.endedAt)
        let video = try await catalog(appliance).rangeVideo(
            from: first.addingTimeInterval(-5), to: lastEnd.addingTimeInterval(5))
        XCTAssertEqual(video.pieces.map(\.recordingId), segments.map(\.id), "every segment, in order")
        let path = try write(video)

        let decode = try ProcessOutcome.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"], timeout: 120)
        XCTAssertEqual(decode.status, 0)
        XCTAssertEqual(decode.stderr, "", "decodes without an error")
        var expected: [String] = []
        for segment in segments { expected += try Self.pictureSums(segment.path) }
        let sums = try Self.pictureSums(path)
        XCTAssertEqual(sums.count, expected.count, "as many pictures as the segments hold")
        XCTAssertNil(
            zip(sums, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset,
            "the segments' pictures, frame for frame")

        let frames = try Self.packetTimes(path, stream: "v:0")
        let steps = zip(frames.dropFirst(), frames).map { $0 - $1 }
        XCTAssertEqual(frames.first ?? -1, 0, accuracy: 0.001)
        XCTAssertLessThan(
            steps.map { abs($0 - 1.0 / 30) }.max() ?? 1, 0.002, "a frame every 1/30 s across every boundary")
        let sound = try Self.packetTimes(path, stream: "a:0")
        let soundSteps = zip(sound.dropFirst(), sound).map { $0 - $1 }
        XCTAssertLessThan(
            soundSteps.map { abs($0 - 1024.0 / 48000) }.max() ?? 1, 0.012, "sound without holes or overlaps")
        let end = (frames.last ?? 0) + 1.0 / 30
        XCTAssertEqual(sound.last.map { $0 + 1024.0 / 48000 } ?? 0, end, accuracy: 0.05, "sound ends with the picture")
        XCTAssertEqual(video.duration, end, accuracy: 0.002)
    }

    func testARangeInsideStartsAtTheKeyframeBeforeItAndEndsWithIt() async throws {
        let (appliance, segments) = try await recordedSegments()
        guard segments.count >= 5 else { return XCTFail("five files: \(segments.count)") }
        let second = try XCTUnwrap(segments[1].mediaStart)
        let fourth = try XCTUnwrap(segments[3].mediaStart)
        let from = second.addingTimeInterval(1.5)
        let to = fourth.addingTimeInterval(0.5)
        let video = try await catalog(appliance).rangeVideo(from: from, to: to)
        XCTAssertEqual(video.pieces.map(\.recordingId), [segments[1].id, segments[2].id, segments[3].id])
        XCTAssertLessThanOrEqual(video.start, from)
        XCTAssertLessThanOrEqual(from.timeIntervalSince(video.start), 1.0 + 0.001, "at most a keyframe interval early")
        XCTAssertGreaterThanOrEqual(video.end, to.addingTimeInterval(-1.0 / 30))
        XCTAssertLessThanOrEqual(video.end, to.addingTimeInterval(1.0 / 30))
        XCTAssertEqual(try XCTUnwrap(video.offset(at: from)), from.timeIntervalSince(video.start), accuracy: 0.001)
        let path = try write(video)
        let decode = try ProcessOutcome.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"], timeout: 120)
        XCTAssertEqual(decode.stderr, "", "decodes without an error")
        let frames = try Self.packetTimes(path, stream: "v:0")
        XCTAssertEqual(Double(frames.count) / 30, video.duration, accuracy: 0.001)
        let sums = try Self.pictureSums(path)
        let secondSums = try Self.pictureSums(segments[1].path)
        let skip = Int((video.start.timeIntervalSince(second) * 30).rounded())
        XCTAssertTrue(
            Array(sums.prefix(secondSums.count - skip)) == Array(secondSums.dropFirst(skip)),
            "the second segment's frames from its keyframe at \(skip)")
    }

    func testNothingRecordedIsAnError() async throws {
        let appliance = try await TestAppliance(directory: directory)
        try await appliance.stop()
        do {
            _ = try await catalog(appliance).rangeVideo(from: Date().addingTimeInterval(-60), to: Date())
            XCTFail("a video of nothing")
        } catch {
            XCTAssertEqual("\(error)", "nothing playable was recorded in that range")
        }
    }
}
