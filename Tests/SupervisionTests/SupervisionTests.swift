import ApplianceBase
import ApplianceProtocol
import Foundation
import MediaLibrary
import XCTest

@testable import Supervision

#if canImport(Glibc)
    import Glibc
#endif

/// The pure parts of supervision: the flow judge, the status line, loop recording's seams, run counting and the
/// notify datagram. Times are given to the judge, never waited for.
final class SupervisionTests: XCTestCase {
    func testTheJudgeWantsFramesAndBusTurnsAndCallsAStallAfterItsLimit() {
        var judge = FlowJudge(stallAfter: .seconds(2))
        let t0 = ContinuousClock.now
        XCTAssertEqual(judge.sample(frames: 10, busTurns: 5, at: t0), .quiet, "nothing to compare with yet")
        XCTAssertEqual(judge.sample(frames: 20, busTurns: 9, at: t0 + .seconds(1)), .alive)
        XCTAssertEqual(
            judge.sample(frames: 20, busTurns: 19, at: t0 + .seconds(2)), .quiet, "frames stood still for 1 s")
        XCTAssertEqual(judge.sample(frames: 20, busTurns: 29, at: t0 + .milliseconds(2900)), .quiet)
        XCTAssertEqual(
            judge.sample(frames: 20, busTurns: 39, at: t0 + .seconds(3)),
            .stalled(reason: "no output frame for 2.0 s", seconds: 2.0))
        XCTAssertEqual(judge.sample(frames: 21, busTurns: 49, at: t0 + .seconds(4)), .alive, "frames again")
        // The bus thread stuck while frames flow.
        XCTAssertEqual(judge.sample(frames: 30, busTurns: 49, at: t0 + .seconds(5)), .quiet)
        XCTAssertEqual(
            judge.sample(frames: 40, busTurns: 49, at: t0 + .milliseconds(6500)),
            .stalled(reason: "the GStreamer bus thread has not turned for 2.5 s", seconds: 2.5))
    }

    /// Each channel is judged on its own (their counters run at their own rates): one that stalls is the daemon's
    /// stall, named; the daemon is alive only when every channel is.
    func testAnyChannelsStallIsTheDaemonsAndNamesIt() {
        var first = FlowJudge(stallAfter: .seconds(2))
        var rear = FlowJudge(stallAfter: .seconds(2))
        let t0 = ContinuousClock.now
        func tick(_ second: Int, front frames: UInt64, rear rearFrames: UInt64) -> FlowJudge.Verdict {
            let at = t0 + .seconds(second)
            return FlowJudge.combined([
                (nil, first.sample(frames: frames, busTurns: UInt64(second), at: at)),
                ("rear", rear.sample(frames: rearFrames, busTurns: UInt64(second), at: at)),
            ])
        }
        XCTAssertEqual(tick(0, front: 0, rear: 0), .quiet)
        XCTAssertEqual(tick(1, front: 30, rear: 10), .alive)
        XCTAssertEqual(tick(2, front: 60, rear: 10), .quiet, "the rear stood still for 1 s")
        XCTAssertEqual(
            tick(3, front: 90, rear: 10), .stalled(reason: "channel rear: no output frame for 2.0 s", seconds: 2.0))
        XCTAssertEqual(tick(4, front: 120, rear: 11), .alive)
        XCTAssertEqual(tick(5, front: 120, rear: 12), .quiet)
        XCTAssertEqual(tick(6, front: 120, rear: 13), .stalled(reason: "no output frame for 2.0 s", seconds: 2.0))
    }

    func testTheStatusLineSaysWhatSystemctlShows() {
        var s = Self.status(state: .recording)
        s.recording = StatusReport.Live(
            id: "a", title: "t", elapsedMs: 754_000, durationMs: 754_000, videoFrames: 1, droppedFrames: 0,
            avOffsetMs: nil, partialPath: "/p")
        s.capacity = Capacity(
            usedBytes: 1, freeBytes: 41_300_000_000, budgetBytes: 2, lockedBytes: 0, lockedPercent: 0,
            bitrateKbps: 4000, wrapsInS: 21600, wrapsIn: "6 h")
        XCTAssertEqual(StatusLine.make(s), "recording 00:12:34 · front · 41 GB free, wraps in 6 h")
        s.recording?.segment = 3
        s.capacity?.wrapsIn = nil
        s.capacity?.freeBytes = 2_450_000_000
        XCTAssertEqual(StatusLine.make(s), "recording 00:12:34 (segment 3) · front · 2.5 GB free")
        var idle = Self.status(state: .idle)
        idle.storage.state = .missing
        XCTAssertEqual(
            StatusLine.make(idle, stall: "no output frame for 5.0 s"),
            "STALLED: no output frame for 5.0 s · idle · front · STORAGE MISSING")
        idle.ready = false
        idle.storage.state = .ok
        idle.storageFull = "only locked clips left"
        XCTAssertEqual(StatusLine.make(idle), "starting · front · STORAGE FULL: only locked clips left")
    }

    /// The datagram reaches a socket bound at a path, and one in the abstract namespace (`@name`).
    func testNotifyDatagramsReachPathAndAbstractSockets() throws {
        let name = "appliance-test-\(UUID().uuidString.prefix(8))"
        for (address, spelled) in [("/tmp/\(name).sock", "/tmp/\(name).sock"), ("\u{0}\(name)", "@\(name)")] {
            let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            defer {
                close(fd)
                if address.hasPrefix("/") { unlink(address) }
            }
            var sa = sockaddr_un()
            sa.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(address.utf8)
            withUnsafeMutableBytes(of: &sa.sun_path) { $0.copyBytes(from: bytes) }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (address.hasPrefix("/") ? 1 : 0))
            let bound = withUnsafePointer(to: &sa) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            XCTAssertEqual(bound, 0, "bind \(spelled): errno \(errno)")
            let notify = try XCTUnwrap(NotifySocket(path: spelled))
            XCTAssertTrue(notify.send("READY=1\nSTATUS=idle · main"))
            var buffer = [UInt8](repeating: 0, count: 256)
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            XCTAssertEqual(
                count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : nil, "READY=1\nSTATUS=idle · main")
        }
        XCTAssertNil(NotifySocket(path: "relative/path"), "systemd only ever gives absolute or abstract addresses")
        XCTAssertFalse(
            NotifySocket(path: "/tmp/nobody-listens-\(name)")!.send("WATCHDOG=1"), "no listener: false, no hang")
    }

    static func status(state: RecorderState) -> StatusReport {
        StatusReport(
            state: state, ready: true, recording: nil, cameras: ["front"], activeCamera: "front", cameraSources: [:],
            audioSource: "test", preview: "none", encoder: "x264", width: 1, height: 1, framerate: 30, dataDir: "/d",
            uptimeS: 1, recordingsThisRun: 0, lastError: nil, gstreamerVersion: "1.22", recordingsTotal: 0,
            databaseBytes: 0,
            recovery: nil,
            output: OutputStats(frames: 0, slotCollisions: 0, filledSlots: 0, missingSlots: 0, missingAtEncoder: 0),
            storage: StorageStatus(state: .ok, recordingsDir: "/d"))
    }
}

final class RestartBackoffTests: XCTestCase {
    func testOnlyACrashLoopWaitsAndTheWaitGrowsToAMinute() {
        let now = Date()
        func runs(_ unclean: Int, startedAgo: TimeInterval?) -> DaemonRuns {
            DaemonRuns(
                starts: 10, uncleanExits: unclean, consecutiveUnclean: unclean,
                previousStart: startedAgo.map { now - $0 })
        }
        XCTAssertNil(RestartBackoff.delay(for: runs(0, startedAgo: 3), now: now), "a clean stop before")
        XCTAssertNil(RestartBackoff.delay(for: runs(1, startedAgo: 3), now: now), "one crash: record at once")
        XCTAssertNil(
            RestartBackoff.delay(for: runs(4, startedAgo: 3600), now: now), "a power cut after an hour's drive")
        XCTAssertNil(RestartBackoff.delay(for: runs(4, startedAgo: nil), now: now))
        XCTAssertEqual(
            (2...9).map { RestartBackoff.delay(for: runs($0, startedAgo: 5), now: now) },
            [2, 4, 8, 16, 32, 60, 60, 60].map { Duration.seconds($0) })
    }
}
