import ApplianceBase
import Foundation
import GStreamerKit
import Mp4
import Settings
import TestSupport
import XCTest

@testable import Engine

/// What a crash or a power cut can leave, systematically instead of by luck: real recordings made by the
/// appliance's own recording bin (mp4mux in its DASH fragment mode behind the FragmentStreamWatch) are cut at box
/// boundaries and at points inside each box, every cut is finished, and each result is held against mp4mux's own
/// index of the same recording: a second mp4mux (index at the end, no fragments) behind the same tees gets the very
/// same buffers. For every cut: nothing before the last whole fragment is lost and nothing after it is indexed;
/// sample by sample the sizes, durations, composition offsets and keyframe flags are mp4mux's, and the bytes each
/// sample points at are the bytes mp4mux's index points at; the tracks start as mp4mux's edit list says; and a sample
/// of the cuts decode in ffmpeg without an error.
///
/// Recordings: a moving and a still picture with noise, with and without sound, fragments of 1 s and 0.1 s, and a
/// foreign encoder with scene-cut keyframes (a keyframe every few frames). `make test` samples the cut points
/// (seeded; the seed is printed); APPLIANCE_CUT_SWEEP=all takes every one (scripts/cut-sweep.sh).
final class FragmentCutTests: XCTestCase {
    struct Recording: CustomStringConvertible {
        var name: String
        var pattern: String
        var audio: Bool
        var fragmentS: Double
        /// x264 as the appliance sets it up (a fixed GOP), or with its own scene-cut keyframes.
        var sceneCuts = false
        var description: String { name }
    }

    static let recordings = [
        Recording(name: "moving-audio-1s", pattern: "smpte horizontal-speed=4", audio: true, fragmentS: 1),
        Recording(name: "moving-audio-0.1s", pattern: "smpte horizontal-speed=4", audio: true, fragmentS: 0.1),
        Recording(name: "moving-silent-1s", pattern: "ball", audio: false, fragmentS: 1),
        Recording(name: "moving-silent-0.1s", pattern: "ball", audio: false, fragmentS: 0.1),
        Recording(name: "still-noise-audio-1s", pattern: "smpte", audio: true, fragmentS: 1),
        Recording(name: "still-noise-audio-0.1s", pattern: "smpte", audio: true, fragmentS: 0.1),
        Recording(name: "still-noise-silent-1s", pattern: "smpte", audio: false, fragmentS: 1),
        Recording(name: "still-noise-scene-cuts", pattern: "smpte", audio: true, fragmentS: 1, sceneCuts: true),
    ]

    private var folder: URL!

    override func setUpWithError() throws {
        folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent(
            "cuts-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: folder) }

    func testEveryCutOfEveryRecordingFinishesToMp4muxsOwnIndex() throws {
        let sweepAll = ProcessInfo.processInfo.environment["APPLIANCE_CUT_SWEEP"] == "all"
        let seed = SeededRandom.seed(from: "APPLIANCE_CUT_SEED")
        print(
            """
            FragmentCutTests: seed \(seed) (APPLIANCE_CUT_SEED=\(seed) replays it), \
            \(sweepAll ? "every cut" : "sampled cuts")
            """
        )
        var random = SeededRandom(seed: seed)
        var total = 0
        var decoded = 0
        for recording in Self.recordings {
            let (partial, reference) = try record(recording)
            let fixture = try CutFixture(partial: partial, reference: reference)
            XCTAssertGreaterThan(fixture.fragments.count, 2, "\(recording): fragments")
            var cuts = fixture.cutPoints()
            if !sweepAll { cuts = Array(cuts.shuffled(using: &random).prefix(40)) + [fixture.size] }
            let decodeChecks = Set(cuts.shuffled(using: &random).prefix(sweepAll ? cuts.count : 3) + [fixture.size])
            for cut in cuts {
                if try fixture.check(
                    cut: cut, in: folder, decode: decodeChecks.contains(cut), label: "\(recording) cut at \(cut)")
                {
                    decoded += 1
                }
                total += 1
            }
        }
        print("FragmentCutTests: \(total) cuts finished and compared, \(decoded) decoded by ffmpeg")
    }

    /// A crash after the index was appended but before the 16-byte write that makes it the file's: the next
    /// finish cuts the appended index off and writes the same file again.
    func testAFinishInterruptedBeforeItsLastWriteIsRedone() throws {
        let (partial, _) = try record(Self.recordings[0])
        let once = folder.appendingPathComponent("once.mp4").path
        try FileManager.default.copyItem(atPath: partial, toPath: once)
        guard case .indexed(_, 0, nil) = try Mp4Finishing.finish(path: once) else {
            return XCTFail("not indexed whole")
        }
        let finished = try Data(contentsOf: URL(fileURLWithPath: once))
        let index = try XCTUnwrap(try Mp4File(path: once).topLevel().boxes.last)
        XCTAssertEqual(index.type, "moov")
        var interrupted = try Data(contentsOf: URL(fileURLWithPath: partial))
        interrupted.append(finished[index.offset..<index.end])
        let twice = folder.appendingPathComponent("twice.mp4").path
        try interrupted.write(to: URL(fileURLWithPath: twice))
        guard case .indexed = try Mp4Finishing.finish(path: twice) else { return XCTFail("not indexed") }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: twice)), finished)
        XCTAssertEqual(try Mp4Finishing.finish(path: twice), .finished)
    }

    /// A fragment whose samples cannot be worked out (here its index claims more bytes than its media holds) is not
    /// indexed, nor anything after it: the file keeps every fragment before it, says why, and plays.
    func testAFragmentThatCannotBeWorkedOutIsRefusedWithWhatFollows() throws {
        let (partial, reference) = try record(Self.recordings[1])
        let fixture = try CutFixture(partial: partial, reference: reference)
        var bytes = fixture.partial
        let moofs = fixture.boxes.filter { $0.type == "moof" }
        let broken = moofs[moofs.count / 2]
        let stated = try Mp4Fragments.trackFragments(
            moof: Data(bytes[broken.offset..<broken.end]), moofOffset: Int64(broken.offset), defaults: [:])
        // The trun's first sample size (flags 0x701: data offset, then per sample duration, size, flags).
        let trun =
            try XCTUnwrap(Data(bytes[broken.offset..<broken.end]).range(of: Data("trun".utf8))).lowerBound
            + broken.offset - bytes.startIndex
        let firstSize = trun + 4 + 4 + 4 + 4 + 4
        XCTAssertEqual(Data(bytes[firstSize..<firstSize + 4]).uint32(at: 0), stated[0].runs[0].entries[0].size)
        bytes.replaceSubrange(firstSize..<firstSize + 4, with: [0x7F, 0, 0, 0])
        let path = folder.appendingPathComponent("broken.mp4").path
        try bytes.write(to: URL(fileURLWithPath: path))
        guard case .indexed(let samples, let dropped, let refused?) = try Mp4Finishing.finish(path: path) else {
            return XCTFail("not refused")
        }
        XCTAssertTrue(refused.contains("the fragment at byte \(broken.offset)"), refused)
        let before = fixture.fragments.filter { $0.end <= broken.offset }
        XCTAssertEqual(samples, before.reduce(0) { $0 + $1.samples.values.reduce(0, +) })
        XCTAssertEqual(dropped, Int64(fixture.size - before.last!.end))
        XCTAssertEqual(try CutFixture.decodeErrors(path), "")
    }

    // MARK: recording

    /// Records `recording` through a RecordingBin and, from the same tees, a reference mp4mux; returns the
    /// bin's file as it stands at EOS (fragmented: nothing has finished it) and the reference.
    private func record(_ recording: Recording) throws -> (partial: String, reference: String) {
        let partial = folder.appendingPathComponent("\(recording.name).mp4").path
        let reference = folder.appendingPathComponent("\(recording.name)-reference.mp4").path
        let frames = 90
        let encoder =
            "x264enc tune=zerolatency speed-preset=ultrafast bitrate=1500 key-int-max=30"
            + (recording.sceneCuts ? "" : " option-string=scenecut=0")
        var description = """
            videotestsrc num-buffers=\(frames) pattern=\(recording.pattern) ! \
            video/x-raw,width=320,height=180,framerate=30/1 ! \
            \(encoder) ! h264parse ! tee name=vt vt. ! queue ! ref.video_0 vt. ! queue name=vq \
            mp4mux name=ref ! filesink location=\(Bin.quoted(reference))
            """
        if recording.audio {
            description += """
                 audiotestsrc num-buffers=\(frames * 48000 / 30 / 1024 + 1) samplesperbuffer=1024 wave=ticks ! \
                audioconvert ! \
                audio/x-raw,rate=48000,channels=1 ! avenc_aac ! aacparse ! tee name=at at. ! queue ! ref.audio_0 at. ! \
                queue name=aq
                """
        }
        let pipeline = Pipeline(name: "cut-\(recording.name)")
        let sources = try Bin.parse(description, name: "sources", label: recording.name, ghostUnlinkedPads: false)
        try pipeline.add(sources)
        var config = ApplianceConfig()
        config.recording.syncIntervalS = recording.fragmentS
        let starts = Locked(FragmentStreamWatch.Starts())
        let bin = try RecordingBin(name: "rec", path: partial, hasAudio: recording.audio, config: config) {
            starts.withLock { $0 }
        }
        try pipeline.add(bin.bin)
        func connect(_ queue: String, to pad: Pad, audio: Bool) throws {
            let source = try sources.addGhostPad(
                named: queue, target: try XCTUnwrap(sources.element(named: queue)?.staticPad("src")))
            try source.link(pad)
            pad.addProbe(.buffer) { info in
                guard let buffer = info.buffer else { return .ok }
                let time = info.runningTime(buffer.pts)
                starts.withLock { s in
                    if audio, s.audio == nil { s.audio = time } else if !audio, s.video == nil { s.video = time }
                }
                return .ok
            }
        }
        try connect("vq", to: bin.videoPad, audio: false)
        if let audioPad = bin.audioPad { try connect("aq", to: audioPad, audio: true) }
        try pipeline.runToEnd(timeout: ClockTime(seconds: 60))
        return (partial, reference)
    }
}
