import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// SIGKILL at random moments of real recordings — while one starts, in the middle of a fragment, while it stops,
/// across loop-segment cuts with pre-roll and short fragments — and a restart after each: no 0-byte file and no
/// partial file left, every clip in the list decodes in ffmpeg without an error and starts its sound with its
/// picture, and a recording that got nothing keeps a row that says so. The seed is printed; APPLIANCE_KILL_SEED
/// replays a run and APPLIANCE_KILLS sets the number of kills (default 24 under `make test`, half on single clips,
/// half on loop recording: each run draws new moments; `make fuzz` kills 120 times).
final class KillTests: XCTestCase {
    enum Moment: CaseIterable { case starting, recording, stopping }

    func testRandomKillsLeaveNoEmptyFileAndEveryClipDecodes() throws {
        let seed = SeededRandom.seed(from: "APPLIANCE_KILL_SEED")
        let kills = ProcessInfo.processInfo.environment["APPLIANCE_KILLS"].flatMap(Int.init) ?? 24
        print("KillTests: seed \(seed) (APPLIANCE_KILL_SEED=\(seed) replays it), \(kills) kills")
        var random = SeededRandom(seed: seed)
        // Single clips on the defaults: a fragment a second.
        try killRounds(kills / 2, daemon: try DaemonProcess(), random: &random, label: "clips")
        // Loop recording: 1.5 s segments, pre-roll, a fragment every 250 ms: kills land on cuts and mid-fragment.
        try killRounds(
            kills - kills / 2,
            daemon: try DaemonProcess(
                extra: """
                    [recording]
                    segment_s = 1.5
                    pre_record_s = 1.0
                    sync_interval_s = 0.25
                    """), random: &random, label: "loop")
    }

    private func killRounds(_ rounds: Int, daemon: DaemonProcess, random: inout SeededRandom, label: String) throws {
        func pause(_ range: ClosedRange<Double>) {
            // the subject: a random moment to kill at
            Thread.sleep(forTimeInterval: Double.random(in: range, using: &random))
        }
        let send = { (command: String) in
            let client = try ControlClient(path: daemon.socketPath, timeout: 5)
            try client.send(raw: Data(#"{"command": "\#(command)"}"#.utf8 + [10]))
            return client
        }
        var moments: [Moment] = []
        var checked = Set<String>()
        var states: [String: Int] = [:]
        for round in 0..<rounds {
            try daemon.start()
            // Each start recovers the kill before it: check what it made of it.
            try checkClips(daemon, checked: &checked, states: &states, label: "\(label) round \(round)")
            let moment = Moment.allCases.randomElement(using: &random)!
            moments.append(moment)
            switch moment {
            case .starting:
                let client = try send("record.start")
                pause(0...0.4)
                _ = client
            case .recording:
                _ = try daemon.recordStart()
                pause(0.2...4)
            case .stopping:
                _ = try daemon.recordStart()
                pause(0.3...3)
                let client = try send("record.stop")
                pause(0...0.3)
                _ = client
            }
            daemon.stop(signal: SIGKILL)
        }
        try daemon.start()  // recovers the last kill
        defer { daemon.stop() }
        try checkClips(daemon, checked: &checked, states: &states, label: "\(label) after the last kill")
        XCTAssertEqual(
            MediaFiles.mp4Files(under: daemon.dataDir).filter { $0.size == 0 }.map(\.path), [], "no 0-byte file")
        XCTAssertEqual(daemon.partialFiles(), [])
        // A kill before the daemon read `record start` leaves nothing at all: only those rounds may lack a row.
        XCTAssertGreaterThanOrEqual(
            checked.count, moments.filter { $0 != .starting }.count, "every recording that started has a row")
        print(
            """
            kills (\(label)): \(moments.filter { $0 == .starting }.count) starting, \
            \(moments.filter { $0 == .recording }.count) recording, 
            """
                + "\(moments.filter { $0 == .stopping }.count) stopping → clips \(states.sorted { $0.key < $1.key })")
    }

    /// Every clip not looked at yet: a failed one has no file and says "nothing recorded"; any other decodes without
    /// an error, has frames, and its sound starts with its picture (within an AAC frame).
    private func checkClips(
        _ daemon: DaemonProcess, checked: inout Set<String>, states: inout [String: Int], label: String
    ) throws {
        for item in try daemon.list(perPage: 500).items where !checked.contains(item.id) {
            checked.insert(item.id)
            let state = item.state.rawValue
            states[state, default: 0] += 1
            if state == "failed" {
                XCTAssertTrue((item.failureReason ?? "").hasPrefix("nothing recorded"), "\(label): \(item)")
                XCTAssertFalse(
                    FileManager.default.fileExists(atPath: item.path),
                    "\(label): a recording with nothing in it leaves no file")
                continue
            }
            XCTAssertTrue(["complete", "recovered"].contains(state), "\(label): \(item)")
            let probe = try MediaProbe(item.path)
            XCTAssertGreaterThan(
                try XCTUnwrap(probe.video, "\(label): \(item.path)").frames, 0, "\(label): \(item.path)")
            XCTAssertEqual(try probe.decodeErrors(), "", "\(label): \(item.path)")
            if let audio = probe.audio, let video = probe.video {
                XCTAssertEqual(
                    audio.startTime - video.startTime, 0.011, accuracy: 0.012,
                    "\(label): \(item.path): sound starts with the picture, within an AAC frame after it")
            }
        }
    }
}

enum MediaFiles {
    /// Every .mp4 under a folder, with its size.
    static func mp4Files(under root: String) -> [(path: String, size: Int)] {
        let enumerator = FileManager.default.enumerator(atPath: root)
        var found: [(String, Int)] = []
        while let item = enumerator?.nextObject() as? String {
            guard item.hasSuffix(".mp4") else { continue }
            let path = root + "/" + item
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? -1
            found.append((path, size))
        }
        return found
    }
}
