import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

@testable import appliance

/// `appliance ctl console` in a real terminal: a private tmux server (its own `-L` socket) runs it, `send-keys`
/// presses the keys and `capture-pane` reads the screen. Timing is never asserted: captures are polled until what
/// is expected shows, with a timeout.
final class ConsoleTests: XCTestCase {
    private static let cameras = """
        [[camera]]
        name = "front"
        source = "test"
        pattern = "smpte"
        [[camera]]
        name = "back"
        source = "test"
        pattern = "ball"
        """

    func testKeysDriveTheDaemonAndQuitRestoresTheTerminal() throws {
        let daemon = try DaemonProcess(cameras: Self.cameras)
        try daemon.start()
        defer { daemon.stop() }
        let tmux = try TmuxConsole(daemon: daemon)
        defer { tmux.kill() }

        var screen = try tmux.waitFor("the starting screen") { $0.contains("IDLE") && $0.contains("camera     front") }
        XCTAssertTrue(screen.contains("last clip  none yet"), screen)
        XCTAssertTrue(screen.contains(ConsoleRenderer.help), screen)
        XCTAssertEqual(tmux.alternateScreen, true)

        // space: recording, and the elapsed time goes on by itself (the console asks nothing per tick).
        tmux.send("Space")
        screen = try tmux.waitFor("RECORDING") { Self.elapsed(in: $0) != nil }
        let first = try XCTUnwrap(Self.elapsed(in: screen))
        screen = try tmux.waitFor("the elapsed time to advance") { (Self.elapsed(in: $0) ?? 0) > first }
        XCTAssertEqual(try daemon.status().state, .recording)

        // n: the other camera.
        tmux.send("n")
        screen = try tmux.waitFor("the camera to change") { $0.contains("camera     back") }
        XCTAssertTrue(screen.contains("camera: front → back"), screen)
        XCTAssertEqual(try daemon.status().activeCamera, "back")

        // s: a snapshot whose path exists.
        tmux.send("s")
        screen = try tmux.waitFor("a snapshot message") { Self.match(#"snapshot (\S+\.jpg)"#, in: $0) != nil }
        let snapshot = try XCTUnwrap(Self.match(#"snapshot (\S+\.jpg)"#, in: screen))
        XCTAssertTrue(FileManager.default.fileExists(atPath: snapshot), snapshot)

        // p while recording: the clip being recorded is protected.
        tmux.send("p")
        screen = try tmux.waitFor("the protect answer") { $0.contains("protected: locked 1 clip(s)") }

        // space again: idle, and the clip just made is the last clip, with its title and path.
        tmux.send("Space")
        screen = try tmux.waitFor("IDLE with the last clip") {
            $0.contains("IDLE") && !$0.contains("last clip  none yet")
        }
        let newest = try XCTUnwrap(try daemon.list(perPage: 1).items.first)
        let title = newest.title
        let path = newest.path
        XCTAssertTrue(screen.contains("last clip  \"\(title)\""), screen)
        XCTAssertTrue(screen.contains(path), screen)
        XCTAssertTrue(screen.contains("> saved \(path)"), screen)
        XCTAssertEqual(newest.locked, true, "p locked the clip")
        XCTAssertEqual(try daemon.status().state, .idle)

        // q: exits 0 with the terminal as it was.
        tmux.send("q")
        screen = try tmux.waitFor("the console to exit") { $0.contains("console exited") }
        XCTAssertTrue(screen.contains("console exited 0"), screen)
        XCTAssertTrue(screen.contains("terminal restored"), screen)
        XCTAssertEqual(tmux.alternateScreen, false)
    }

    func testResizeRedrawsAndCtrlCQuits() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let tmux = try TmuxConsole(daemon: daemon)
        defer { tmux.kill() }
        _ = try tmux.waitFor("the starting screen") { $0.contains("IDLE") }

        tmux.resize(width: 50, height: 12)
        let screen = try tmux.waitFor("a redraw at 50x12") { screen in
            let lines = screen.components(separatedBy: "\n")
            return lines.count >= 12 && lines[11].hasPrefix("space record/stop") && lines[11].hasSuffix("…")
        }
        XCTAssertTrue(screen.components(separatedBy: "\n").allSatisfy { $0.count <= 50 }, screen)

        tmux.send("C-c")
        let end = try tmux.waitFor("the console to exit") { $0.contains("console exited") }
        XCTAssertTrue(end.contains("console exited 0"), end)
        XCTAssertTrue(end.contains("terminal restored"), end)
    }

    func testTheDaemonGoingAwayEndsTheConsoleNonZero() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let tmux = try TmuxConsole(daemon: daemon)
        defer { tmux.kill() }
        _ = try tmux.waitFor("the starting screen") { $0.contains("IDLE") }

        daemon.stop()
        let screen = try tmux.waitFor("the console to exit", timeout: 15) { $0.contains("console exited") }
        XCTAssertTrue(screen.contains("appliance: the daemon went away"), screen)
        XCTAssertTrue(screen.contains("console exited 2"), screen)
        XCTAssertTrue(screen.contains("terminal restored"), screen)
        XCTAssertEqual(tmux.alternateScreen, false)
    }

    func testNoSocketIsTheUsualCtlError() throws {
        let missing = FileManager.default.temporaryDirectory.appendingPathComponent(
            "no-daemon-\(UUID().uuidString.prefix(8)).sock"
        ).path
        let result = try ProcessOutcome.run(DaemonProcess.binary, ["ctl", "--socket", missing, "console"])
        XCTAssertEqual(result.status, 2)
        XCTAssertEqual(
            result.stderr,
            "appliance: cannot connect to \(missing): No such file or directory (is `appliance run` running?)\n")
        XCTAssertEqual(result.stdout, "", "nothing was drawn")
    }

    func testRecordToggle() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let start = try daemon.ctl(["record", "toggle", "--title", "toggled"])
        XCTAssertEqual(start.status, 0, start.stderr)
        XCTAssertTrue(start.stdout.hasPrefix("started: recording "), start.stdout)
        XCTAssertTrue(start.stdout.contains("\"toggled\""), start.stdout)
        try daemon.waitUntilRecorded(1)
        let stop = try daemon.ctl(["--json", "record", "toggle"])
        XCTAssertEqual(stop.status, 0, stop.stderr)
        let stopped = try XCTUnwrap(stop.json?["stopped"] as? [String: Any], stop.stdout)
        XCTAssertEqual(stopped["title"] as? String, "toggled")
        XCTAssertTrue(FileManager.default.fileExists(atPath: try XCTUnwrap(stopped["path"] as? String)))
    }

    // MARK: the renderer and the model, without a terminal

    func testRendererLinesForEachState() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        var model = ConsoleModel()
        model.socketPath = "/run/appliance/ctl.sock"
        model.cameras = ["front", "back"]
        model.activeCamera = "front"
        model.capacity = Capacity(
            usedBytes: 1_000_000_000, freeBytes: 40_100_000_000, budgetBytes: 0, lockedBytes: 0,
            lockedPercent: 0, bitrateKbps: 4000, wrapsInS: 22_320, wrapsIn: "6 h 12 min")

        var lines = ConsoleRenderer.lines(model, now: now, width: 80, height: 20).map(\.text)
        XCTAssertEqual(lines.count, 20)
        XCTAssertEqual(lines[0], "appliance console  /run/appliance/ctl.sock")
        XCTAssertEqual(lines[2], "IDLE")
        XCTAssertTrue(lines.contains("camera     front   (cameras: front, back)"), "\(lines)")
        XCTAssertTrue(lines.contains("storage    40.1 GB free, wraps in 6 h 12 min"), "\(lines)")
        XCTAssertTrue(lines.contains("last clip  none yet"), "\(lines)")
        XCTAssertEqual(lines.last, ConsoleRenderer.help)
        XCTAssertNil(ConsoleRenderer.nextTick(model, now: now), "nothing ticks while idle")

        model.state = .recording
        model.recordingStart = now.addingTimeInterval(-75.4)
        model.recordingTitle = "Kitchen"
        let rendered = ConsoleRenderer.lines(model, now: now, width: 80, height: 20)
        XCTAssertEqual(rendered[2], ScreenLine(text: "● RECORDING  1:15", highlighted: true))
        XCTAssertEqual(rendered[3].text, "  \"Kitchen\"")
        XCTAssertEqual(
            ConsoleRenderer.lines(model, now: now.addingTimeInterval(3600), width: 80, height: 20)[2].text,
            "● RECORDING  1:01:15")
        XCTAssertEqual(try XCTUnwrap(ConsoleRenderer.nextTick(model, now: now)), 0.6, accuracy: 0.001)

        model.state = .stopping
        XCTAssertEqual(ConsoleRenderer.lines(model, now: now, width: 80, height: 20)[2].text, "STOPPING  1:15")

        model.state = .idle
        model.lastClip = .init(id: "a", title: "Kitchen", durationMs: 83_456, path: "/data/recordings/a.mp4")
        model.say("not recording", error: true)
        lines = ConsoleRenderer.lines(model, now: now, width: 80, height: 20).map(\.text)
        XCTAssertTrue(lines.contains("last clip  \"Kitchen\"  1:23"), "\(lines)")
        XCTAssertTrue(lines.contains("           /data/recordings/a.mp4"), "\(lines)")
        XCTAssertTrue(lines.contains("! not recording"), "\(lines)")

        model.disconnected = "the daemon closed the connection"
        XCTAssertTrue(
            ConsoleRenderer.lines(model, now: now, width: 80, height: 20).contains(
                ScreenLine(text: "DAEMON GONE: the daemon closed the connection", highlighted: true)))

        // A small terminal: lines cut by characters, the help line kept last.
        let small = ConsoleRenderer.lines(model, now: now, width: 20, height: 5).map(\.text)
        XCTAssertEqual(small.count, 5)
        XCTAssertEqual(small.last, "space record/stop  …")
        XCTAssertTrue(small.allSatisfy { $0.count <= 20 }, "\(small)")
        XCTAssertEqual(ConsoleRenderer.lines(model, now: now, width: 0, height: 5), [])
    }

    func testModelFollowsEventsAndKeepsTheElapsedTimeAcrossSegments() {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var model = ConsoleModel()
        var first = RecordingStarted(id: "g", title: "Drive", partialPath: "/p/g.mp4", createdAt: start)
        (first.group, first.segment) = ("g", 1)
        XCTAssertTrue(model.apply(event: .recordingStarted(first)))
        XCTAssertEqual(model.state, .recording)
        XCTAssertEqual(model.recordingStart, start)

        var second = RecordingStarted(
            id: "h", title: "Drive", partialPath: "/p/h.mp4", createdAt: start.addingTimeInterval(60))
        (second.group, second.segment) = ("g", 2)
        let closed = Self.result(id: "g", title: "Drive", reason: .segment)
        _ = model.apply(event: .segmentClosed(closed))
        _ = model.apply(event: .recordingStarted(second))
        XCTAssertEqual(model.recordingStart, start, "a new segment of the same recording keeps counting from its start")
        XCTAssertEqual(model.lastClip?.id, "g")

        _ = model.apply(event: .renamed(Renamed(id: "g", title: "Renamed")))
        XCTAssertEqual(model.lastClip?.title, "Renamed")
        _ = model.apply(event: .cameraSwitched(CameraSwitched(from: "front", to: "back", latencyMs: 20)))
        XCTAssertEqual(model.activeCamera, "back")

        _ = model.apply(event: .recordingStopped(Self.result(id: "h", title: "Drive", reason: .storageFull)))
        XCTAssertEqual(model.state, .idle)
        XCTAssertNil(model.recordingStart)
        XCTAssertEqual(model.lastClip?.id, "h")
        XCTAssertEqual(model.message, "recording stopped: storage full")
        XCTAssertTrue(model.messageIsError)

        model.apply(result: .snapshot(SnapshotResult(id: "s", path: "/d/snapshots/s.jpg", width: 1280, height: 720)))
        XCTAssertEqual(model.message, "snapshot /d/snapshots/s.jpg (1280x720)")
        XCTAssertFalse(model.messageIsError)
    }

    func testKeysFromRawBytes() {
        XCTAssertEqual(
            ConsoleKey.parse(Array(" spnq".utf8)), [.toggleRecording, .snapshot, .protect, .nextCamera, .quit])
        XCTAssertEqual(ConsoleKey.parse([0x03]), [.quit], "Ctrl-C is a key in raw mode")
        // Arrow keys and F5 (CSI sequences), F1 (SS3) and other keys do nothing; their letters are not commands.
        XCTAssertEqual(ConsoleKey.parse(Array("\u{1B}[A\u{1B}[15~\u{1B}OPx n".utf8)), [.toggleRecording, .nextCamera])
    }

    // MARK: helpers

    /// The elapsed seconds on the RECORDING line.
    private static func elapsed(in screen: String) -> Int? {
        guard let text = match(#"● RECORDING  ([0-9:]+)"#, in: screen) else { return nil }
        return text.split(separator: ":").reduce(0) { $0 * 60 + (Int($1) ?? 0) }
    }

    private static func match(_ pattern: String, in text: String) -> String? {
        guard let regex = try? NSRegularExpression(pattern: pattern),
            let found = regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)),
            let range = Range(found.range(at: 1), in: text)
        else { return nil }
        return String(text[range])
    }

    private static func result(id: String, title: String, reason: StopReason) -> RecordingResult {
        RecordingResult(
            id: id, title: title, path: "/d/\(id).mp4", thumbnail: nil, durationMs: 60_000, videoFrames: 1800,
            droppedFrames: 0, audioDurationMs: nil, avOffsetMs: nil, sizeBytes: 1, width: 1280, height: 720,
            framerate: 30, createdAt: Date(), endedAt: Date(), stopReason: reason, startLatencyMs: nil,
            stopLatencyMs: nil)
    }
}

/// The console in a pane of a private tmux server (`tmux -L <unique name>`, killed by that name only). The pane's
/// shell records the terminal's settings before and after the console, and its exit status, so a test can see
/// that the terminal was restored.
private final class TmuxConsole {
    let server = "appliance-console-\(UUID().uuidString.prefix(8))"
    private let directory: URL
    private var socketPath: String?

    init(daemon: DaemonProcess, width: Int = 120, height: Int = 30) throws {
        directory = daemon.directory
        let before = directory.appendingPathComponent("stty.before").path
        let after = directory.appendingPathComponent("stty.after").path
        let script = """
            stty -g > '\(before)'; '\(DaemonProcess.binary)' ctl --socket '\(daemon.socketPath)' console; status=$?; \
            stty -g > '\(after)'; cmp -s '\(before)' '\(after)' && echo 'terminal restored'; echo "console exited \
            $status"; \
            sleep 600
            """
        let started = try tmux([
            "new-session", "-d", "-x", "\(width)", "-y", "\(height)", "/bin/sh -c \(Self.quoted(script))",
        ])
        guard started.status == 0 else { throw DaemonError(message: "tmux new-session failed (\(started.status))") }
        socketPath = (try? tmux(["display-message", "-p", "#{socket_path}"]))?.stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    func send(_ key: String) { _ = try? tmux(["send-keys", "-t", "0", key]) }

    func resize(width: Int, height: Int) {
        _ = try? tmux(["resize-window", "-t", "0", "-x", "\(width)", "-y", "\(height)"])
    }

    func capture() -> String { (try? tmux(["capture-pane", "-p", "-t", "0"]))?.stdout ?? "" }

    var alternateScreen: Bool? {
        switch (try? tmux(["display-message", "-p", "-t", "0", "#{alternate_on}"]))?.stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        {
        case "1": true
        case "0": false
        default: nil
        }
    }

    /// Captures the pane every 100 ms until `condition` holds; fails with the last screen after `timeout`.
    func waitFor(
        _ what: String, timeout: TimeInterval = 10, file: StaticString = #filePath, line: UInt = #line,
        _ condition: (String) -> Bool
    ) throws -> String {
        var screen = capture()
        let shown = Poll.until(timeout: timeout, every: 0.1) {
            screen = capture()
            return condition(screen)
        }
        if !shown {
            XCTFail("waited \(timeout) s for \(what); the screen:\n\(screen)", file: file, line: line)
            throw DaemonError(message: "timed out waiting for \(what)")
        }
        return screen
    }

    /// Ends this server only (its own socket), with the console and the pane's shell in it, and removes the socket
    /// file (tmux leaves it behind).
    func kill() {
        _ = try? tmux(["kill-server"])
        if let socketPath, socketPath.contains(server) { unlink(socketPath) }
    }

    /// Runs a tmux client to its end. posix_spawn and waitpid, not Foundation's Process: `new-session` forks the
    /// server from the client, and Process then never reaped the exited client (a zombie; waitUntilExit hung).
    private func tmux(_ arguments: [String]) throws -> (status: Int32, stdout: String) {
        var environment = ProcessInfo.processInfo.environment
        environment["TMUX"] = nil  // a test run inside tmux must not talk to that tmux
        environment["TERM"] = environment["TERM"].flatMap { $0.isEmpty || $0 == "dumb" ? nil : $0 } ?? "xterm-256color"
        let argv = ["tmux", "-L", server, "-f", "/dev/null"] + arguments
        var output: [Int32] = [0, 0]
        guard pipe(&output) == 0 else { throw DaemonError(message: "pipe: \(String(cString: strerror(errno)))") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, output[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, output[0])
        posix_spawn_file_actions_addclose(&actions, output[1])
        let cArgv = argv.map { strdup($0) } + [nil]
        let cEnv = environment.map { strdup("\($0)=\($1)") } + [nil]
        defer { for pointer in cArgv + cEnv { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawnp(&pid, "tmux", &actions, nil, cArgv, cEnv)
        close(output[1])
        defer { close(output[0]) }
        guard spawned == 0 else { throw DaemonError(message: "cannot run tmux: \(String(cString: strerror(spawned)))") }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(output[0], &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            data.append(contentsOf: buffer[0..<count])
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return (
            (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f), String(decoding: data, as: UTF8.self)
        )
    }

    private static func quoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
