import ApplianceBase
import Foundation
import Mp4
import XCTest

@testable import Engine

/// One recording to cut: the recording bin's fragmented file, the fragments in it (where each ends and how many
/// samples of which track it holds, read from its `moof`), and mp4mux's own index of the same recording.
struct CutFixture {
    struct Fragment {
        var end: Int
        var samples: [UInt32: Int]
    }

    /// One track of a finished file's index.
    struct TrackIndex {
        var trackID: UInt32
        var samples: [Mp4Sample]
        /// The empty edit in front of the media (movie timescale), 0 without one.
        var emptyEdit: UInt64
    }

    let partial: Data
    let boxes: [Mp4Box]
    let fragments: [Fragment]
    /// Track ID → handler (`vide`, `soun`) in the fragmented file.
    let handlers: [UInt32: String]
    let referenceData: Data
    let reference: [String: TrackIndex]
    let referenceTimescale: UInt64
    var size: Int { partial.count }

    init(partial path: String, reference referencePath: String) throws {
        partial = try Data(contentsOf: URL(fileURLWithPath: path))
        boxes = try Mp4Box.children(of: partial, in: 0..<partial.count)
        let moov = try XCTUnwrap(boxes.first { $0.type == "moov" })
        handlers = try Self.tracks(in: Data(partial[moov.offset..<moov.end])).mapValues(\.handler)
        var fragments: [Fragment] = []
        for (moof, mdat) in zip(boxes, boxes.dropFirst()) where moof.type == "moof" && mdat.type == "mdat" {
            let stated = try Mp4Fragments.trackFragments(
                moof: Data(partial[moof.offset..<moof.end]), moofOffset: Int64(moof.offset), defaults: [:])
            var samples: [UInt32: Int] = [:]
            for traf in stated { samples[traf.trackID, default: 0] += traf.runs.reduce(0) { $0 + $1.entries.count } }
            fragments.append(Fragment(end: mdat.end, samples: samples))
        }
        self.fragments = fragments
        referenceData = try Data(contentsOf: URL(fileURLWithPath: referencePath))
        (reference, referenceTimescale) = try Self.index(of: referenceData)
    }

    /// Every box boundary, and points inside each box: one byte in, past its header, its middle, one byte short.
    func cutPoints() -> [Int] {
        var points = Set<Int>()
        for box in boxes {
            for point in [box.offset, box.offset + 1, box.offset + 8, box.offset + box.size / 2, box.end - 1]
            where point > 0 && point < size {
                points.insert(point)
            }
        }
        points.insert(size)
        return points.sorted()
    }

    /// Cuts the file at `cut`, finishes it, and holds the result against the reference (see FragmentCutTests);
    /// returns whether ffmpeg decoded the result.
    @discardableResult
    func check(cut: Int, in folder: URL, decode: Bool, label: String) throws -> Bool {
        let path = folder.appendingPathComponent("cut.mp4").path
        try partial.prefix(cut).write(to: URL(fileURLWithPath: path))
        let outcome = try Mp4Finishing.finish(path: path)
        let whole = fragments.filter { $0.end <= cut }
        var expected: [UInt32: Int] = [:]
        for fragment in whole { expected.merge(fragment.samples, uniquingKeysWith: +) }
        // No whole video fragment before the cut (sound alone is no clip): nothing is written.
        let hasVideo = handlers.contains { $0.value == "vide" && expected[$0.key, default: 0] > 0 }
        guard let last = whole.last, hasVideo else {
            XCTAssertEqual(outcome, .empty, label)
            XCTAssertEqual(
                try Data(contentsOf: URL(fileURLWithPath: path)), partial.prefix(cut), "\(label): left as it was")
            return false
        }
        XCTAssertEqual(
            outcome, .indexed(samples: expected.values.reduce(0, +), droppedBytes: Int64(cut - last.end)), label)
        let finished = try Data(contentsOf: URL(fileURLWithPath: path))
        let (index, timescale) = try Self.index(of: finished)
        XCTAssertEqual(timescale, referenceTimescale, label)
        for (handler, theirs) in reference {
            let count = handlers.first { $0.value == handler }.flatMap { expected[$0.key] } ?? 0
            let ours = index[handler]?.samples ?? []
            XCTAssertEqual(ours.count, count, "\(label): \(handler) samples")
            for (i, (mine, reference)) in zip(ours, theirs.samples).enumerated() {
                // A keyframe sooner than sync_interval_s after the last one is written as an ordinary frame
                // (KeyframePacer): the file's keyframes are some of mp4mux's, the first always.
                let sync = mine.isSync == reference.isSync || (i > 0 && !mine.isSync && reference.isSync)
                let same =
                    mine.size == reference.size && mine.duration == reference.duration && sync
                    && mine.compositionOffset == reference.compositionOffset
                    && finished[Int(mine.offset)..<Int(mine.offset) + Int(mine.size)]
                        == referenceData[Int(reference.offset)..<Int(reference.offset) + Int(reference.size)]
                if !same {
                    XCTFail("\(label): \(handler) sample \(i): \(mine) against mp4mux's \(reference)")
                    return false
                }
            }
        }
        if expected.count > 1, let audio = index["soun"], let video = index["vide"], let refAudio = reference["soun"],
            let refVideo = reference["vide"]
        {
            let ours = Int64(audio.emptyEdit) - Int64(video.emptyEdit)
            let theirs = Int64(refAudio.emptyEdit) - Int64(refVideo.emptyEdit)
            XCTAssertLessThanOrEqual(
                abs(ours - theirs), 1, "\(label): audio starts \(ours) after the video, mp4mux says \(theirs)")
        }
        XCTAssertEqual(try Mp4Finishing.finish(path: path), .finished, label)
        guard decode else { return false }
        XCTAssertEqual(try Self.decodeErrors(path), "", label)
        return true
    }

    // MARK: reading indexes

    static func tracks(in moov: Data) throws -> [UInt32: (handler: String, trak: Mp4Box)] {
        let root = try Mp4Box.children(of: moov, in: 0..<moov.count)[0]
        var result: [UInt32: (String, Mp4Box)] = [:]
        for trak in try Mp4Box.children(of: moov, in: root.payload) where trak.type == "trak" {
            let tkhd = try XCTUnwrap(try Mp4Box.child("tkhd", of: trak, in: moov))
            let mdia = try XCTUnwrap(try Mp4Box.child("mdia", of: trak, in: moov))
            let hdlr = try XCTUnwrap(try Mp4Box.child("hdlr", of: mdia, in: moov))
            result[moov.uint32(at: tkhd.payload.lowerBound + (tkhd.version(in: moov) == 1 ? 20 : 12))] = (
                moov.fourCC(at: hdlr.payload.lowerBound + 8), trak
            )
        }
        return result
    }

    /// A finished file's index by handler, and its movie timescale.
    static func index(of file: Data) throws -> ([String: TrackIndex], UInt64) {
        let moovBox = try XCTUnwrap(try Mp4Box.children(of: file, in: 0..<file.count).last { $0.type == "moov" })
        let moov = Data(file[moovBox.offset..<moovBox.end])
        let root = try Mp4Box.children(of: moov, in: 0..<moov.count)[0]
        let mvhd = try XCTUnwrap(try Mp4Box.child("mvhd", of: root, in: moov))
        let timescale = UInt64(moov.uint32(at: mvhd.payload.lowerBound + (mvhd.version(in: moov) == 1 ? 20 : 12)))
        var result: [String: TrackIndex] = [:]
        for (id, (handler, trak)) in try tracks(in: moov) {
            let mdia = try XCTUnwrap(try Mp4Box.child("mdia", of: trak, in: moov))
            let minf = try XCTUnwrap(try Mp4Box.child("minf", of: mdia, in: moov))
            let stbl = try XCTUnwrap(try Mp4Box.child("stbl", of: minf, in: moov))
            var empty: UInt64 = 0
            if let edts = try Mp4Box.child("edts", of: trak, in: moov),
                let elst = try Mp4Box.child("elst", of: edts, in: moov)
            {
                let wide = elst.version(in: moov) == 1
                let count = Int(moov.uint32(at: elst.payload.lowerBound + 4))
                for e in 0..<count {
                    let at = elst.payload.lowerBound + 8 + e * (wide ? 20 : 12)
                    let mediaTime = wide ? Int64(bitPattern: moov.uint64(at: at + 8)) : Int64(moov.int32(at: at + 4))
                    if mediaTime == -1 { empty += wide ? moov.uint64(at: at) : UInt64(moov.uint32(at: at)) }
                }
            }
            result[handler] = TrackIndex(
                trackID: id, samples: try Mp4SampleTable.samples(stbl: stbl, in: moov), emptyEdit: empty)
        }
        return (result, timescale)
    }

    static func decodeErrors(_ path: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-v", "error", "-i", path, "-f", "null", "-"]
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return process.terminationStatus == 0 ? output : "exit \(process.terminationStatus): \(output)"
    }
}
