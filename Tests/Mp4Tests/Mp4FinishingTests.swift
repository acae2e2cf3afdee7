import ApplianceBase
import Foundation
import GStreamerKit
import TestSupport
import XCTest

@testable import Mp4

/// Finishing the files earlier versions wrote (mp4mux's `first-moov-then-finalise` layout) in place, on files real
/// mp4mux writes (gst-launch-1.0 in its own process, so a SIGKILL leaves exactly what a crashed daemon leaves),
/// judged by ffprobe and ffmpeg. The reference for every index this builds is the one mp4mux writes itself at EOS:
/// the packets must match one for one. (The layout the appliance writes now: FragmentCutTests.)
final class Mp4FinishingTests: XCTestCase {
    private var folder: URL!

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mp4finish-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    /// H.264 with B-frames (composition offsets) when `bFrames`, AAC audio, 1 s fragments.
    private func pipeline(_ path: String, live: Bool, buffers: Int? = nil, bFrames: Bool = false) -> [String] {
        let count = buffers.map { " num-buffers=\($0)" } ?? ""
        let encoder =
            bFrames
            ? "x264enc speed-preset=ultrafast bframes=2 key-int-max=30"
            : "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30"
        let audioCount = buffers.map { " num-buffers=\($0 * 44100 / 30 / 1024)" } ?? ""
        return ["-e"]
            + """
            videotestsrc is-live=\(live)\(count) pattern=ball ! video/x-raw,width=320,height=240,framerate=30/1 ! \
            \(encoder) ! \
            h264parse ! queue ! mux. audiotestsrc is-live=\(live)\(audioCount) ! audioconvert ! avenc_aac ! aacparse ! \
            queue ! mux. \
            mp4mux name=mux fragment-duration=1000 fragment-mode=first-moov-then-finalise ! filesink location=\(path)
            """.split(separator: " ").map(String.init)
    }

    /// A file mp4mux finished itself (EOS after `buffers` video frames).
    private func finishedByMuxer(_ name: String, buffers: Int = 150, bFrames: Bool = false) throws -> String {
        let path = folder.appendingPathComponent(name).path
        let result = try run("/usr/bin/gst-launch-1.0", pipeline(path, live: false, buffers: buffers, bFrames: bFrames))
        XCTAssertEqual(result.status, 0, result.output)
        return path
    }

    /// A file whose muxer was SIGKILLed once it held at least `bytes`.
    private func killed(_ name: String, after bytes: Int) throws -> String {
        let path = folder.appendingPathComponent(name).path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/gst-launch-1.0")
        process.arguments = pipeline(path, live: true)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        Poll.until(timeout: 30, every: 0.02) { (DataDirectory.fileSize(path) ?? 0) >= bytes }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertGreaterThanOrEqual(
            DataDirectory.fileSize(path) ?? 0, Int64(bytes), "the muxer never wrote \(bytes) bytes")
        return path
    }

    func testAFinishedFileIsLeftAlone() throws {
        let path = try finishedByMuxer("done.mp4")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        XCTAssertEqual(try Mp4Finishing.finish(path: path), .finished)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before)
        XCTAssertEqual(try topLevel(path), ["ftyp", "free", "mdat", "moov"])
    }

    /// The index built from the fragments lists exactly the packets mp4mux's own index lists: same order, sizes,
    /// timestamps and keyframe flags, for video with B-frames and for audio.
    func testTheBuiltIndexMatchesTheMuxersOwn() throws {
        for bFrames in [false, true] {
            let reference = try finishedByMuxer("ref-\(bFrames).mp4", bFrames: bFrames)
            let interrupted = folder.appendingPathComponent("cut-\(bFrames).mp4").path
            try FileManager.default.copyItem(atPath: reference, toPath: interrupted)
            // mp4mux's finish stopped after it hid the first index and stretched the first mdat: no index visible.
            let moov = try XCTUnwrap(try Mp4File(path: interrupted).topLevel().boxes.last)
            XCTAssertEqual(moov.type, "moov")
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: interrupted))
            try handle.truncate(atOffset: UInt64(moov.offset))
            try handle.close()
            XCTAssertEqual(try topLevel(interrupted), ["ftyp", "free", "mdat"])

            guard case .indexed = try Mp4Finishing.finish(path: interrupted) else { return XCTFail("not indexed") }
            XCTAssertEqual(try topLevel(interrupted), ["ftyp", "free", "mdat", "moov"])
            // The samples after the last moof (mp4mux indexes the last fragment only in its final index) are lost,
            // as in a crash; every other packet is the same.
            let referencePackets = try packets(reference)
            let built = try packets(interrupted)
            for stream in ["0", "1"] {
                let expected = referencePackets.filter { $0.hasPrefix(stream + ",") }
                let got = built.filter { $0.hasPrefix(stream + ",") }
                XCTAssertEqual(got, Array(expected.prefix(got.count)), "stream \(stream), B-frames: \(bFrames)")
                XCTAssertGreaterThan(got.count, expected.count - (stream == "0" ? 31 : 45), "more than a fragment lost")
            }
            XCTAssertEqual(try decodeErrors(interrupted), "")
            XCTAssertEqual(try Mp4Finishing.finish(path: interrupted), .finished, "finishing twice changes nothing")
        }
    }

    /// SIGKILL mid-recording: every complete fragment is indexed, the unindexed tail is dropped, and the file plays
    /// to within a fragment of where the muxer died, in GStreamer (what recovery measures with) and in ffmpeg.
    func testAKilledRecordingIsIndexedUpToItsLastFragment() throws {
        let path = try killed("killed.mp4", after: 400_000)
        let killedSize = DataDirectory.fileSize(path)!
        let decodableBefore = try videoFrames(path)  // ffmpeg reads the fragments as they are
        guard case .indexed(_, let dropped, nil) = try Mp4Finishing.finish(path: path) else {
            return XCTFail("not indexed")
        }
        XCTAssertEqual(try topLevel(path), ["ftyp", "free", "mdat", "moov"])
        XCTAssertEqual(DataDirectory.fileSize(path)!, killedSize - dropped + Int64(try topLevelSizes(path).last!))
        XCTAssertEqual(try decodeErrors(path), "")
        XCTAssertEqual(try videoFrames(path), decodableBefore, "every frame a fragment indexed is kept, no more")
        let info = try Discoverer.inspect(path: path)
        XCTAssertEqual(
            try XCTUnwrap(info.duration).seconds, Double(decodableBefore) / 30, accuracy: 0.1,
            "GStreamer sees the whole file, not only the first fragment")
        XCTAssertEqual(try Mp4Finishing.finish(path: path), .finished)
    }

    /// The muxer's finish hid the first index (`hoov`) but had not yet stretched the first mdat or written the
    /// full index: the file is made fragmented again and indexed.
    func testAHiddenFirstIndexIsRestored() throws {
        let path = try killed("hidden.mp4", after: 200_000)
        let initial = try XCTUnwrap(try Mp4File(path: path).topLevel().initialMoov)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.seek(toOffset: UInt64(initial.offset + 4))
        try handle.write(contentsOf: Data("hoov".utf8))
        try handle.close()
        guard case .indexed = try Mp4Finishing.finish(path: path) else { return XCTFail("not indexed") }
        XCTAssertEqual(try decodeErrors(path), "")
        XCTAssertGreaterThanOrEqual(try videoFrames(path), 30)
    }

    /// Killed before the first fragment was indexed: nothing to recover, and the file is left for recovery to
    /// remove.
    func testAFileWithNoIndexIsEmpty() throws {
        let path = try killed("early.mp4", after: 1)
        if try Mp4File(path: path).topLevel().initialMoov == nil {
            XCTAssertEqual(try Mp4Finishing.finish(path: path), .empty)
        }
        let zero = folder.appendingPathComponent("zero.mp4").path
        XCTAssertTrue(FileManager.default.createFile(atPath: zero, contents: Data()))
        XCTAssertEqual(try Mp4Finishing.finish(path: zero), .empty)
    }

    // MARK: helpers

    private func run(_ tool: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private func topLevel(_ path: String) throws -> [String] { try Mp4File(path: path).topLevel().boxes.map(\.type) }
    private func topLevelSizes(_ path: String) throws -> [Int] { try Mp4File(path: path).topLevel().boxes.map(\.size) }

    private func packets(_ path: String) throws -> [String] {
        let result = try run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-show_entries", "packet=stream_index,pts,dts,duration,size,flags",
                "-of", "csv=p=0", path,
            ])
        XCTAssertEqual(result.status, 0, result.output)
        return result.output.split(separator: "\n").map(String.init)
    }

    private func decodeErrors(_ path: String) throws -> String {
        let result = try run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "null", "-"])
        return result.output + (result.status == 0 ? "" : "exit \(result.status)")
    }

    private func videoFrames(_ path: String) throws -> Int {
        let result = try run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-count_frames", "-select_streams", "v:0",
                "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", path,
            ])
        return Int(result.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
    }
}
