import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// The cut test (ApplianceAppTests' CutTests) on what only the running daemon writes: a clip with pre-roll
/// (its first fragment from the pre-record window) and a camera switch in its middle, left unfinished by a SIGKILL.
/// Its partial file is cut at box boundaries and inside boxes (a seeded sample; the seed is printed), every cut is
/// put in a fresh data folder's partial/ at once, and the daemon's own start-up recovery finishes them all. The
/// reference is ffmpeg's own reading of the uncut file's fragments: each recovered clip holds exactly the packets of
/// the whole fragments before its cut (same place in the file, size, keyframe flag and timing), decodes without an
/// error and starts its sound with its picture; a cut with no whole video fragment leaves no file and a row that
/// says "nothing recorded".
final class CrashCutTests: XCTestCase {
    struct Packet: Equatable {
        var stream: Int
        var pos: Int
        var size: Int
        var keyframe: Bool
        var dts: Double
    }

    func testCutsOfAKilledClipWithPreRollAndASwitchAreRecoveredToTheirWholeFragments() throws {
        let seed = SeededRandom.seed(from: "APPLIANCE_CUT_SEED")
        print("CrashCutTests: seed \(seed) (APPLIANCE_CUT_SEED=\(seed) replays it)")
        var random = SeededRandom(seed: seed)
        let partial = try killedClip()
        let data = try Data(contentsOf: URL(fileURLWithPath: partial))
        let reference = try packets(partial)
        let layout = try Mp4Layout(partial)
        var offsets: [(type: String, start: Int, end: Int)] = []
        var at = 0
        for atom in layout.atoms {
            offsets.append((atom.type, at, at + Int(atom.size)))
            at += Int(atom.size)
        }
        let fragmentEnds = zip(offsets, offsets.dropFirst()).filter { $0.0.type == "moof" && $0.1.type == "mdat" }.map(
            \.1.end)
        XCTAssertGreaterThan(fragmentEnds.count, 6, "fragments")
        var candidates = Set<Int>()
        for box in offsets {
            for point in [box.start, box.start + 1, box.start + 8, (box.start + box.end) / 2, box.end - 1]
            where point > 0 && point < data.count { candidates.insert(point) }
        }
        let cuts = Array(candidates.sorted().shuffled(using: &random).prefix(24)) + [data.count]

        let daemon = try DaemonProcess()
        try FileManager.default.createDirectory(atPath: daemon.dataDir + "/partial", withIntermediateDirectories: true)
        var byID: [String: Int] = [:]
        for cut in cuts {
            let id = UUID().uuidString.lowercased()
            byID[id] = cut
            try data.prefix(cut).write(to: URL(fileURLWithPath: daemon.dataDir + "/partial/\(id).mp4"))
        }
        try daemon.start(timeout: 120)
        defer { daemon.stop() }
        XCTAssertEqual(daemon.partialFiles(), [])
        let items = Dictionary(uniqueKeysWithValues: try daemon.list(perPage: 100).items.map { ($0.id, $0) })
        var recovered = 0
        for (id, cut) in byID.sorted(by: { $0.value < $1.value }) {
            let label = "cut at \(cut) of \(data.count)"
            let whole = fragmentEnds.filter { $0 <= cut }.max() ?? 0
            let expected = reference.filter { $0.pos < whole }
            // No whole video fragment: nothing to recover. A file without a row leaves no row either.
            guard expected.contains(where: { $0.stream == 0 }) else {
                XCTAssertNil(items[id], label)
                XCTAssertEqual(
                    MediaFiles.mp4Files(under: daemon.dataDir).filter { $0.path.contains(id) }.count, 0, label)
                continue
            }
            guard let item = items[id] else {
                XCTFail("\(label): no row")
                continue
            }
            recovered += 1
            XCTAssertEqual(item.state, .recovered, label)
            let got = try packets(item.path)
            for stream in [0, 1] {
                let mine = got.filter { $0.stream == stream }
                let theirs = expected.filter { $0.stream == stream }
                XCTAssertEqual(mine.map(\.pos), theirs.map(\.pos), "\(label): stream \(stream) packets")
                XCTAssertEqual(mine.map(\.size), theirs.map(\.size), "\(label): stream \(stream) sizes")
                XCTAssertEqual(mine.map(\.keyframe), theirs.map(\.keyframe), "\(label): stream \(stream) keyframes")
                let steps = { (list: [Packet]) in
                    zip(list, list.dropFirst()).map { ($0.1.dts - $0.0.dts) * 1000 }.map { $0.rounded() }
                }
                XCTAssertEqual(steps(mine), steps(theirs), "\(label): stream \(stream) timing")
            }
            let probe = try MediaProbe(item.path)
            XCTAssertEqual(try probe.decodeErrors(), "", label)
            if let audio = probe.audio, let video = probe.video {
                XCTAssertEqual(
                    audio.startTime - video.startTime, 0.011, accuracy: 0.012, "\(label): sound starts with the picture"
                )
            }
        }
        print(
            """
            CrashCutTests: \(cuts.count) cuts of a \(data.count)-byte partial file, \(recovered) recovered and \
            compared
            """
        )
        XCTAssertGreaterThan(recovered, cuts.count / 2)
    }

    /// A clip recorded with 2 s of pre-roll, the camera switched in its middle, and the daemon killed: its partial
    /// file, copied out.
    private func killedClip() throws -> String {
        let daemon = try DaemonProcess(
            extra: "[recording]\npre_record_s = 2.0\nsync_interval_s = 0.5",
            cameras: """
                [[camera]]
                name = "front"
                source = "pipeline"
                pipeline = "videotestsrc is-live=true pattern=smpte ! capsfilter \
                caps=video/x-raw,width=640,height=480,framerate=25/1"
                [[camera]]
                name = "back"
                source = "pipeline"
                pipeline = "videotestsrc is-live=true pattern=ball ! capsfilter \
                caps=video/x-raw,width=960,height=540,framerate=15/1"
                """)
        try daemon.start()
        try daemon.waitForFrames(seconds: 2.5)  // the pre-record window fills
        let started = try daemon.recordStart()
        try daemon.waitUntilElapsed(2)
        _ = try daemon.switchCamera(.next(channel: nil))
        try daemon.waitUntilElapsed(4.5)
        daemon.stop(signal: SIGKILL)
        let partial = daemon.dataDir + "/partial/\(started.id).mp4"
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("crashcut-\(started.id).mp4").path
        try? FileManager.default.removeItem(atPath: copy)
        try FileManager.default.copyItem(atPath: partial, toPath: copy)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: copy) }
        return copy
    }

    /// Every packet as ffprobe reads it, in file order: stream, position, size, keyframe flag, decode time.
    private func packets(_ path: String) throws -> [Packet] {
        let result = try ProcessOutcome.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-show_entries", "packet=stream_index,pos,size,flags,dts_time",
                "-of", "csv=p=0", path,
            ])
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 5, let stream = Int(f[0]), let dts = Double(f[1]), let size = Int(f[2]),
                let pos = Int(f[3])
            else { return nil }
            return Packet(stream: stream, pos: pos, size: size, keyframe: f[4].hasPrefix("K"), dts: dts)
        }
    }
}
