import ApplianceApp
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Runs the real `appliance` binary: as a daemon on a temporary data dir, or as a one-shot `ctl` command.
final class DaemonProcess {
    let directory: URL
    let dataDir: String
    let socketPath: String
    let configPath: String
    let logPath: String
    private(set) var process: Process?

    /// A test config: live test sources (deterministic on any machine), no preview, and `extra` appended. The
    /// encoder is the default (`auto`: what a newcomer gets) unless `extra` names one: a test pins an encoder only
    /// when it checks that encoder's own stream.
    static func config(dataDir: String, extra: String = "", cameras: String? = nil) -> String {
        """
        data_dir = "\(dataDir)"
        log_level = "info"
        [audio]
        source = "test"
        [preview]
        sink = "none"
        \(extra.contains("[web]") ? "" : "[web]\nlisten = \"127.0.0.1:0\"")
        \(extra)
        \(cameras ?? "[[camera]]\nname = \"main\"\nsource = \"test\"\npattern = \"smpte\"")
        """
    }

    /// `root`: where the test's folder goes (default: the temporary directory).
    init(extra: String = "", cameras: String? = nil, root: String? = nil, file: StaticString = #filePath) throws {
        let parent = root.map { URL(fileURLWithPath: $0) } ?? FileManager.default.temporaryDirectory
        directory = parent.appendingPathComponent("appliance-e2e-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        dataDir = directory.appendingPathComponent("data").path
        socketPath = directory.appendingPathComponent("ctl.sock").path
        configPath = directory.appendingPathComponent("appliance.toml").path
        logPath = directory.appendingPathComponent("daemon.log").path
        try Self.config(dataDir: dataDir, extra: extra, cameras: cameras).write(
            toFile: configPath, atomically: true, encoding: .utf8)
    }

    deinit {
        if let process, process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// The built `appliance` binary, next to the test bundle.
    static var binary: String {
        let testBinary = URL(
            fileURLWithPath: CommandLine.arguments.first { $0.contains(".xctest") } ?? CommandLine.arguments[0])
        var dir = testBinary.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("appliance").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir.deleteLastPathComponent()
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/appliance").path
    }

    /// Adds TOML to the end of the config file (new tables such as [backup]).
    func appendConfig(_ text: String) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: configPath))
        handle.seekToEndOfFile()
        handle.write(Data(("\n" + text + "\n").utf8))
        try handle.close()
    }

    /// Polls `condition` every 100 ms until it holds or `timeout` passes; returns whether it held.
    @discardableResult
    func waitFor(_ timeout: TimeInterval, _ condition: () throws -> Bool) rethrows -> Bool {
        try Poll.until(timeout: timeout, every: 0.1, condition)
    }

    /// A command that runs the daemon (its path and arguments follow), which must exec it (so the PID stays the
    /// daemon's): e.g. a private mount namespace.
    var launcher: [String] = []
    /// Extra environment for the daemon.
    var environment: [String: String] = [:]
    /// Whether the daemon starts with the encoder choice an earlier test daemon made by trial (`EncoderChoiceSeed`).
    var seedsEncoderChoice = true

    /// Starts `appliance run` and waits until it is ready (`status.ready`).
    /// `waitForReconcile`: also wait until the rows have been checked against the files (in the background after
    /// the start: adoption, files gone, the storage missing), as tests that place files or rows before the start
    /// expect; a test that measures the start itself says false.
    func start(arguments: [String]? = nil, timeout: TimeInterval = 20, waitForReconcile: Bool = true) throws {
        let process = Process()
        let daemonArguments = arguments ?? ["run", "--config", configPath, "--socket", socketPath]
        if let first = launcher.first {
            process.executableURL = URL(fileURLWithPath: first)
            process.arguments = Array(launcher.dropFirst()) + [Self.binary] + daemonArguments
        } else {
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = daemonArguments
        }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, added in added }
        }
        let config = (try? String(contentsOfFile: configPath, encoding: .utf8)) ?? ""
        // Not through a launcher: it may put another folder where the data dir is (a mount in its own namespace), and
        // the seed would be left in the folder under it (StorageGoneTests checks that nothing is written there).
        let seeds = seedsEncoderChoice && arguments == nil && launcher.isEmpty
        if seeds { EncoderChoiceSeed.plant(config: config, dataDir: dataDir) }
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        log.seekToEndOfFile()
        process.standardOutput = log
        process.standardError = log
        try process.run()
        self.process = process
        let socketPath = socketPath
        let ready = try Poll.until(timeout: timeout, every: 0.1) {
            if !process.isRunning {
                throw DaemonError(message: "daemon exited (\(process.terminationStatus)): \(self.log)")
            }
            // Ready: the socket answers and the first video frame has passed the camera selector.
            guard let client = try? ControlClient(path: socketPath, timeout: 5),
                case .status(let report)? = try? client.perform(.status), report.ready,
                !waitForReconcile || report.recovery?.reconciled != false
            else { return false }
            Self.sayEncoder(report)
            if seeds, report.encoderChoice?.how == .trial { EncoderChoiceSeed.keep(config: config, dataDir: dataDir) }
            return true
        }
        if !ready { throw DaemonError(message: "daemon did not answer within \(timeout) s: \(self.log)") }
    }

    /// Each test's output names the encoder its daemon records with (and how it was chosen).
    private static func sayEncoder(_ report: StatusReport) {
        let how = report.encoderChoice.map { " (\($0.element), \($0.how.rawValue))" } ?? ""
        print("DaemonProcess: encoder \(report.encoder)\(how)")
    }

    /// Sends a signal and waits for the process to exit; returns its exit status.
    @discardableResult
    func stop(signal: Int32 = SIGTERM, timeout: TimeInterval = 20) -> Int32 {
        guard let process else { return -1 }
        kill(process.processIdentifier, signal)
        Poll.until(timeout: timeout) { !process.isRunning }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        self.process = nil
        return process.terminationStatus
    }

    var isRunning: Bool { process?.isRunning ?? false }
    var pid: Int32? { process?.processIdentifier }
    var log: String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// Runs `body` (the rest of a test), printing the daemon's log when it throws or an assertion in it failed.
    /// XCTest on Linux counts an error thrown by the test method only after the teardown blocks have run, so a
    /// teardown block that looks at the failure count missed it (an EncoderFailoverTests failure came without its log).
    @discardableResult
    func showingLogOnFailure<T>(in test: XCTestCase, _ body: () throws -> T) rethrows -> T {
        let failuresBefore = test.testRun?.failureCount ?? 0
        let result: T
        do {
            result = try body()
        } catch {
            print("---- daemon log ----\n" + log)
            throw error
        }
        if (test.testRun?.failureCount ?? 0) > failuresBefore { print("---- daemon log ----\n" + log) }
        return result
    }

    /// An untyped request over the socket: only for what a test sends malformed on purpose (typed: `perform`).
    func call(_ command: String, args: [String: Any] = [:]) throws -> [String: Any] {
        try ControlClient(path: socketPath, timeout: 30).call(command, args: args)
    }

    /// Runs `appliance ctl --socket S …`.
    /// `input`: what `ctl` reads on its standard input (a password).
    func ctl(_ arguments: [String], input: String? = nil) throws -> ProcessOutcome {
        try ProcessOutcome.run(
            Self.binary, ["ctl", "--socket", socketPath] + arguments, input: input.map { Data($0.utf8) })
    }

    /// The web dashboard's base URL (`http://127.0.0.1:PORT`), once it serves; test configs listen on port 0.
    func webURL(timeout: TimeInterval = 10) throws -> String {
        var url: String?
        waitFor(timeout) {
            url = (try? status())?.web?.url
            return url != nil
        }
        guard let url else {
            throw NSError(
                domain: "DaemonProcess", code: 1,
                userInfo: [NSLocalizedDescriptionKey: "the web dashboard did not start serving"])
        }
        return url
    }

    func recordings() -> [String] {
        let root = dataDir + "/recordings"
        let enumerator = FileManager.default.enumerator(atPath: root)
        var files: [String] = []
        while let item = enumerator?.nextObject() as? String {
            if item.hasSuffix(".mp4") { files.append(root + "/" + item) }
        }
        return files.sorted()
    }

    func partialFiles() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dataDir + "/partial")) ?? []).filter {
            $0.hasSuffix(".mp4")
        }
    }
}

struct DaemonError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

extension DaemonProcess {
    /// A typed command over the socket; an error answer throws the daemon's `ApplianceError`.
    func perform(_ command: Command) throws -> ApplianceProtocol.CommandResult {
        try ControlClient(path: socketPath, timeout: 30).perform(command)
    }

    /// The code of the error a well-formed command is refused with (`not_found`, `conflict`…), nil when it succeeds.
    func errorCode(_ command: Command) -> String? {
        do {
            _ = try perform(command)
            return nil
        } catch let error as ApplianceError {
            return error.code.rawValue
        } catch {
            return "\(error)"
        }
    }

    func status() throws -> StatusReport {
        guard case .status(let report) = try perform(.status) else {
            throw DaemonError(message: "status: unexpected result")
        }
        return report
    }

    func cameras() throws -> CamerasReport {
        guard case .cameras(let report) = try perform(.cameras) else {
            throw DaemonError(message: "cameras: unexpected result")
        }
        return report
    }

    func recordStart(title: String? = nil) throws -> RecordingStarted {
        guard case .recordingStarted(let started) = try perform(.recordStart(title: title)) else {
            throw DaemonError(message: "record.start: unexpected result")
        }
        return started
    }

    func recordStop(title: String? = nil) throws -> RecordingResult {
        guard case .recordingStopped(let result) = try perform(.recordStop(title: title)) else {
            throw DaemonError(message: "record.stop: unexpected result")
        }
        return result
    }

    func info(_ id: String) throws -> RecordingInfo {
        guard case .info(let info) = try perform(.info(id: id)) else {
            throw DaemonError(message: "info: unexpected result")
        }
        return info
    }

    /// `list`: one page of clips (newest first), or with `grouped` one entry per loop recording.
    func list(page: Int = 1, perPage: Int = Command.defaultPerPage, grouped: Bool = false) throws -> ListResult {
        try list(grouped ? .listGrouped(page: page, perPage: perPage) : .list(page: page, perPage: perPage))
    }

    /// `list` with `group`: one loop recording's segments.
    func list(group: String, page: Int = 1, perPage: Int = Command.defaultPerPage) throws -> ListResult {
        try list(.listSegments(group: group, page: page, perPage: perPage))
    }

    /// `list` with `search`, `from` or `to`.
    func list(_ filter: ListFilter, page: Int = 1, perPage: Int = Command.defaultPerPage) throws -> ListResult {
        try list(.listFiltered(filter, page: page, perPage: perPage))
    }

    private func list(_ command: Command) throws -> ListResult {
        guard case .list(let list) = try perform(command) else { throw DaemonError(message: "list: unexpected result") }
        return list
    }

    func backupStatus() throws -> BackupStatus {
        guard case .backupStatus(let status) = try perform(.backupStatus) else {
            throw DaemonError(message: "backup.status: unexpected result")
        }
        return status
    }

    func backupRetry(id: String? = nil) throws -> RetryResult {
        guard case .backupRetry(let result) = try perform(.backupRetry(id: id)) else {
            throw DaemonError(message: "backup.retry: unexpected result")
        }
        return result
    }

    func metrics() throws -> MetricsReport {
        guard case .metrics(let report) = try perform(.metrics) else {
            throw DaemonError(message: "metrics: unexpected result")
        }
        return report
    }

    func switchCamera(_ choice: Command.CameraChoice) throws -> SwitchResult {
        guard case .switched(let result) = try perform(.switchCamera(choice)) else {
            throw DaemonError(message: "switch: unexpected result")
        }
        return result
    }

    func snapshot(channel: String? = nil) throws -> SnapshotResult {
        guard case .snapshot(let result) = try perform(.snapshot(channel: channel)) else {
            throw DaemonError(message: "snapshot: unexpected result")
        }
        return result
    }

    func lock(_ id: String) throws -> Recording {
        guard case .recording(let recording) = try perform(.lock(id: id)) else {
            throw DaemonError(message: "lock: unexpected result")
        }
        return recording
    }

    func unlock(_ id: String) throws -> Recording {
        guard case .recording(let recording) = try perform(.unlock(id: id)) else {
            throw DaemonError(message: "unlock: unexpected result")
        }
        return recording
    }

    func rename(_ id: String, title: String) throws -> Recording {
        guard case .recording(let recording) = try perform(.rename(id: id, title: title)) else {
            throw DaemonError(message: "rename: unexpected result")
        }
        return recording
    }

    func delete(_ id: String, force: Bool = false) throws -> DeleteResult {
        guard case .deleted(let result) = try perform(.delete(id: id, force: force)) else {
            throw DaemonError(message: "delete: unexpected result")
        }
        return result
    }
}

extension ProcessOutcome {
    var json: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
    }
}

extension DaemonProcess {
    /// Waits until the recording in progress satisfies `condition` (its status: video written, segment…); throws,
    /// with the last status seen, when it does not within `timeout`.
    func waitForRecording(_ what: String, timeout: TimeInterval = 30, _ condition: (StatusReport.Live) -> Bool) throws {
        var last: StatusReport.Live?
        let held = try Poll.until(timeout: timeout) {
            last = try status().recording
            return last.map(condition) ?? false
        }
        if !held {
            throw DaemonError(
                message:
                    """
                    the recording did not reach \(what) within \(timeout) s (last: \
                    \(last.map { "\($0)" } ?? "not recording"))
                    """
            )
        }
    }

    /// "Record for `seconds`": waits until the recording in progress has `seconds` of video written
    /// (`recording.duration_ms`: with pre-record the pre-roll counts). Not for loop recording: there it is the
    /// current segment's, and the status moves to the next segment when its bin is attached, before the cut.
    func waitUntilRecorded(_ seconds: Double, timeout: TimeInterval? = nil) throws {
        try waitForRecording("\(seconds) s of video", timeout: timeout ?? 20 + 3 * seconds) {
            $0.durationMs >= Int(seconds * 1000)
        }
    }

    /// Waits until the recording in progress has `seconds` more video written than it has now.
    func waitForMoreVideo(_ seconds: Double, timeout: TimeInterval? = nil) throws {
        let now = try status().recording?.durationMs ?? 0
        try waitForRecording("\(seconds) s more video", timeout: timeout ?? 20 + 3 * seconds) {
            $0.durationMs >= now + Int(seconds * 1000)
        }
    }

    /// Waits until the recording in progress has gone on `seconds` since its request (`recording.elapsed_ms`, which
    /// in loop recording counts from the first segment): for loop recording and pre-record, where the video written
    /// is a segment's or includes the pre-roll.
    func waitUntilElapsed(_ seconds: Double, timeout: TimeInterval? = nil) throws {
        try waitForRecording("\(seconds) s since the request", timeout: timeout ?? 20 + 3 * seconds) {
            $0.elapsedMs >= Int(seconds * 1000)
        }
    }

    /// Waits until `seconds` of video have passed the camera selector (`output.frames` at the configured framerate)
    /// since the count was `since` (default: since the daemon started). The pre-record window holds what came since
    /// it started filling, up to its length; the status has no field for the window itself, so its filling is
    /// waited for this way.
    func waitForFrames(seconds: Double, since: UInt64 = 0, timeout: TimeInterval? = nil) throws {
        var last: StatusReport?
        let held = try waitFor(timeout ?? 20 + 3 * seconds) {
            let report = try status()
            last = report
            return Double(report.output.frames) >= Double(since) + seconds * Double(report.framerate)
        }
        if !held {
            throw DaemonError(
                message:
                    """
                    \(seconds) s of frames did not pass the camera selector \
                    (\(last.map { "\($0.output.frames)" } ?? "?") since start)
                    """
            )
        }
    }
}
