import Foundation
import Synchronization

/// The outcome of running a command to completion (shared by the test targets that drive real tools: ffmpeg,
/// ffprobe, gst-launch, the appliance's own CLI).
public struct ProcessOutcome: Sendable {
    public var status: Int32
    public var stdout: String
    public var stderr: String
    /// stdout as bytes (raw video).
    public var stdoutData = Data()

    /// Everything it printed, stdout then stderr.
    public var output: String { stdout + stderr }

    /// A command that was still running at its deadline, stopped.
    public struct TimedOut: Error, CustomStringConvertible {
        public var command: String
        public var description: String { "\(command) timed out" }
    }

    /// Runs `executable` to its end; past `timeout` it is stopped and `TimedOut` thrown. Both pipes are read on other
    /// threads while it runs, so a chatty child cannot block on a full pipe, and one that never ends (a client of a
    /// stalled stream) cannot keep the caller waiting past the deadline.
    /// `input`: written to its standard input, which is then closed (none: /dev/null).
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        input: Data? = nil, timeout: TimeInterval = 120
    ) throws -> ProcessOutcome {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let stdin = input.map { _ in Pipe() }
        process.standardInput = stdin ?? FileHandle.nullDevice
        try process.run()
        if let stdin, let input {
            try stdin.fileHandleForWriting.write(contentsOf: input)
            try stdin.fileHandleForWriting.close()
        }
        let group = DispatchGroup()
        let outData = PipeContents(out, group)
        let errData = PipeContents(err, group)
        if group.wait(timeout: .now() + timeout) == .timedOut {
            process.terminate()
            throw TimedOut(command: ([executable] + arguments).joined(separator: " "))
        }
        process.waitUntilExit()
        let stdout = outData.data
        let stderr = errData.data
        return ProcessOutcome(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self), stdoutData: stdout)
    }
}

/// A pipe read to its end on another thread, inside `group`.
private final class PipeContents: Sendable {
    private let contents = Mutex(Data())
    var data: Data { contents.withLock { $0 } }

    init(_ pipe: Pipe, _ group: DispatchGroup) {
        group.enter()
        DispatchQueue.global().async { [self] in
            let read = pipe.fileHandleForReading.readDataToEndOfFile()
            contents.withLock { $0 = read }
            group.leave()
        }
    }
}

extension Process {
    /// Waits for the process to end, stopping it (SIGTERM) if it still runs after `seconds`: a client whose stream
    /// stalls fails its test instead of hanging the suite. True when it ended by itself.
    @discardableResult
    public func finish(within seconds: TimeInterval) -> Bool {
        Poll.until(timeout: seconds) { !isRunning }
        let ended = !isRunning
        if !ended { terminate() }
        waitUntilExit()
        return ended
    }
}
