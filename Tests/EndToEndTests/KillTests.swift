import ApplianceProtocol
import Foundation
import XCTest

/// SIGKILL at random moments — while a recording starts, while it runs, while it stops — then a restart: no 0-byte
/// file anywhere, every clip in the list decodes without errors, and a recording that got nothing keeps a row
/// that says so.
final class KillTests: XCTestCase {
    enum Moment: CaseIterable { case starting, recording, stopping }

    func testTwentyKillsLeaveNoEmptyFileAndEveryListedClipDecodes() throws {
        let daemon = try DaemonProcess()
        var rng = FuzzTests.SplitMix(state: 20_261_121)
        func pause(_ range: ClosedRange<Double>) {
            Thread.sleep(forTimeInterval: range.lowerBound + Double(rng.next() % 1000) / 1000 * (range.upperBound - range.lowerBound))
        }
        let send = { (command: String) in
            let client = try ControlClient(path: daemon.socketPath, timeout: 5)
            try client.send(raw: Data(#"{"command": "\#(command)"}"#.utf8 + [10]))
            return client
        }
        var moments: [Moment] = []
        for round in 0..<20 {
            try daemon.start()
            let moment = Moment.allCases[round % 3]
            moments.append(moment)
            switch moment {
            case .starting:
                let client = try send("record.start")
                pause(0...0.4)
                _ = client
            case .recording:
                _ = try daemon.recordStart()
                pause(0.2...3)
            case .stopping:
                _ = try daemon.recordStart()
                pause(0.3...2.5)
                let client = try send("record.stop")
                pause(0...0.3)
                _ = client
            }
            daemon.stop(signal: SIGKILL)
        }

        try daemon.start()  // recovers the last kill
        defer { daemon.stop() }
        let files = MediaFiles.mp4Files(under: daemon.dataDir)
        XCTAssertEqual(files.filter { $0.size == 0 }.map(\.path), [], "no 0-byte file")
        XCTAssertEqual(daemon.partialFiles(), [])
        let list = try daemon.list(perPage: 100)
        let items = list.items
        // A kill before the daemon read `record start` leaves nothing at all: only those rounds may lack a row.
        XCTAssertLessThanOrEqual(items.count, 20)
        XCTAssertGreaterThanOrEqual(items.count, moments.filter { $0 != .starting }.count, "every recording that started has a row")
        var states: [String: Int] = [:]
        for item in items {
            let state = item.state.rawValue
            states[state, default: 0] += 1
            let path = item.path
            if state == "failed" {
                XCTAssertTrue((item.failureReason ?? "").hasPrefix("nothing recorded"), "\(item)")
                XCTAssertFalse(FileManager.default.fileExists(atPath: path), "a recording with nothing in it leaves no file")
                continue
            }
            XCTAssertTrue(["complete", "recovered"].contains(state), "\(item)")
            let probe = try MediaProbe(path)
            XCTAssertGreaterThan(try XCTUnwrap(probe.video).frames, 0, path)
            XCTAssertEqual(try probe.decodeErrors(), "", path)
        }
        print("kills: \(moments.filter { $0 == .starting }.count) starting, \(moments.filter { $0 == .recording }.count) recording, "
              + "\(moments.filter { $0 == .stopping }.count) stopping → clips \(states.sorted { $0.key < $1.key })")
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
