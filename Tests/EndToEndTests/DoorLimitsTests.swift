import ApplianceBase
import Foundation
import TestSupport
import XCTest

/// Greedy clients against a real daemon started with the file limit systemd gives a service by default (1024):
/// 1,100 connections that send nothing, then slowhttptest's slowloris and slow body. A normal client (from another
/// address) is still answered within 2 s, the daemon keeps its PID and records a whole clip.
final class DoorLimitsTests: XCTestCase {
    /// Starts the daemon with a soft file limit of 1024 (inherited from this process for the moment of its start).
    private func startAt1024() throws -> WebDaemon {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        var lowered = limit
        lowered.rlim_cur = 1024
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &lowered)
        defer { setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) }
        return try WebDaemon()
    }

    /// `/api/status` from 127.0.0.2 (another client than the attack's 127.0.0.1), in at most 2 s.
    private func assertAnswersANormalClient(
        _ web: WebDaemon, _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let result = try ProcessOutcome.run(
            "/usr/bin/curl",
            [
                "-s", "-o", "/dev/null", "-w", "%{http_code} %{time_total}", "--max-time", "2",
                "--interface", "127.0.0.2", "-H", "Authorization: Bearer \(WebDaemon.password)",
                web.url + "/api/status",
            ], timeout: 10)
        XCTAssertTrue(
            result.stdout.hasPrefix("200 "), "\(what): a normal client got \(result.stdout) \(result.stderr)",
            file: file, line: line)
    }

    private func assertRecordsWhole(_ web: WebDaemon, pid: Int32?, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        XCTAssertEqual(web.daemon.pid, pid, "the daemon kept its PID", file: file, line: line)
        let clip = try web.recordClip(seconds: 1.5)
        let probe = try ProcessOutcome.run(
            "/usr/bin/ffmpeg", ["-v", "error", "-i", clip.path, "-f", "null", "-"], timeout: 60)
        XCTAssertEqual(probe.status, 0, file: file, line: line)
        XCTAssertTrue(probe.stderr.isEmpty, "the clip decodes whole: \(probe.stderr)", file: file, line: line)
    }

    /// Opens `count` TCP connections to `url`'s port that send nothing.
    private func idleConnections(_ count: Int, to url: String) throws -> [Int32] {
        let port = UInt16(URL(string: url)!.port!)
        var sockets: [Int32] = []
        for _ in 0..<count {
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { break }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if connected == 0 { sockets.append(fd) } else { close(fd) }
        }
        return sockets
    }

    /// How many of `sockets` the server has closed (a read sees end of file or a reset).
    private func closedByServer(_ sockets: [Int32]) -> Int {
        sockets.filter { fd in
            var pollfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pollfd, 1, 0) == 1 else { return false }
            var byte: UInt8 = 0
            return recv(fd, &byte, 1, Int32(MSG_DONTWAIT)) <= 0
        }.count
    }

    func testElevenHundredIdleConnectionsLeaveTheDashboardAnswering() throws {
        let web = try startAt1024()
        defer { web.stop() }
        let pid = web.daemon.pid
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        guard limit.rlim_cur >= 1300 else { throw XCTSkip("this test process may open only \(limit.rlim_cur) files") }
        let sockets = try idleConnections(1100, to: web.url)
        defer { for socket in sockets { close(socket) } }
        XCTAssertEqual(sockets.count, 1100, "the kernel accepted every connection")
        try assertAnswersANormalClient(web, "with 1,100 idle connections open")
        // Past the per-client cap the server closed them at once; the rest go at the idle timeout.
        XCTAssertTrue(
            Poll.until(timeout: 10, every: 0.5) { closedByServer(sockets) >= 1100 - 32 },
            "connections over the cap closed at once")
        XCTAssertTrue(
            Poll.until(timeout: 40, every: 1) { closedByServer(sockets) == 1100 },
            "idle connections closed: \(closedByServer(sockets))")
        try assertAnswersANormalClient(web, "after the idle connections")
        try assertRecordsWhole(web, pid: pid)
    }

    func testSlowlorisAndSlowBodyLeaveTheDashboardAnswering() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/slowhttptest") else {
            throw XCTSkip("slowhttptest is not installed")
        }
        let web = try startAt1024()
        defer { web.stop() }
        let pid = web.daemon.pid
        // The slow body goes to the login form: a route anyone may post to, which reads its body.
        for (mode, target) in [("-H", "/api/status"), ("-B", "/login")] {
            // 600 connections, each sending a header line (or 10 bytes of body) every 5 s, for 20 s.
            let attack = Process()
            attack.executableURL = URL(fileURLWithPath: "/usr/bin/slowhttptest")
            attack.arguments = [
                mode, "-c", "600", "-i", "5", "-r", "200", "-l", "20", "-s", "8192", "-x", "10", "-p", "3",
                "-t", mode == "-B" ? "POST" : "GET", "-u", web.url + target,
            ]
            attack.standardOutput = FileHandle.nullDevice
            attack.standardError = FileHandle.nullDevice
            try attack.run()
            defer {
                if attack.isRunning { attack.terminate() }
                attack.waitUntilExit()
            }
            // While the attack runs (it ramps up at 200 connections a second), a normal client every 4 s.
            var checks = 0
            while !Poll.until(timeout: 4, every: 0.2, { !attack.isRunning }) {
                try assertAnswersANormalClient(web, "during slowhttptest \(mode)")
                checks += 1
            }
            // The server ends the attack's connections itself (idle 15 s, a body's 10 s): it need not run its 20 s.
            XCTAssertGreaterThanOrEqual(checks, 2, "a normal client served while slowhttptest \(mode) ran")
            try assertAnswersANormalClient(web, "after slowhttptest \(mode)")
        }
        try assertRecordsWhole(web, pid: pid)
    }
}

/// `/api/events` for a client that falls behind (it reads nothing while 2,500 events of about 2,100 bytes are made,
/// titles of 494 four-byte characters: more than the socket buffers, up to 4 MB on loopback, hold; 8,000 of 640 bytes
/// took 74 s of renaming): the
/// daemon keeps at most 256 of them for it, then stops sending, tells it why (`event: dropped`) and closes the
/// stream; the daemon is the same process after, and a new client gets events again.
final class EventStreamBoundTests: XCTestCase {
    func testAClientThatFallsBehindIsDroppedWithAReason() throws {
        let web = try WebDaemon()
        defer { web.stop() }
        let clip = try web.recordClip(seconds: 1)
        let pid = web.daemon.pid
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Security/slow_events.py").path
        let renames = 2500
        let run = try ProcessOutcome.run(
            "/usr/bin/env",
            [
                "python3", script, "--url", web.url, "--token", WebDaemon.password, "--clip", clip.id,
                "--renames", String(renames), "--title-bytes", "494", "--title-char", "🎥",
            ], timeout: 300)
        XCTAssertEqual(run.status, 0, run.stderr)
        print("EventStreamBoundTests: \(run.stdout)")
        let report = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], run.stdout)
        let received = try XCTUnwrap(report["renamed"] as? Int)
        XCTAssertLessThan(received, renames, "fell behind: not every event was kept for it")
        XCTAssertGreaterThan(received, 0)
        let dropped = try XCTUnwrap(report["dropped"] as? [String])
        XCTAssertEqual(dropped.count, 1, "told why: \(report)")
        XCTAssertTrue(dropped.first?.contains("fell 256 events behind") == true, "\(dropped)")
        XCTAssertEqual(report["closed"] as? Bool, true, "the stream ends")
        XCTAssertEqual(web.daemon.pid, pid)
        // A new client is served and gets events.
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: Curl.path)
        curl.arguments = [
            "-s", "-N", "--max-time", "6", "-H", "Authorization: Bearer \(WebDaemon.password)", web.url + "/api/events",
        ]
        let output = Pipe()
        curl.standardOutput = output
        try curl.run()
        var text = ""
        while !text.contains(": connected") {  // subscribed: the stream's first line has come
            let data = output.fileHandleForReading.availableData
            if data.isEmpty { break }  // curl ended
            text += String(decoding: data, as: UTF8.self)
        }
        XCTAssertEqual(try web.post("/api/recordings/\(clip.id)/rename", #"{"title":"after"}"#).status, 200)
        curl.waitUntilExit()
        text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        XCTAssertTrue(text.contains("event: renamed"), "a new client gets events: \(text.prefix(500))")
    }
}
