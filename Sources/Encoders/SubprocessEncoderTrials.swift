import ApplianceBase
import ApplianceProtocol
import Engine
import Foundation
import Settings

/// Each trial in a child process, `appliance encoder-trial …`, which prints the trial as one JSON line: a driver
/// that crashes or hangs costs that candidate only. A child still running at the limit (plus its start-up) is
/// killed and the candidate is `timed_out`; one that dies is `failed`, with its signal or exit status.
public struct SubprocessEncoderTrials: EncoderTrialRunner {
    /// The appliance binary (`/proc/self/exe` of the daemon).
    public let executable: String
    /// GStreamer's start (registry) in the child, on top of the trial's own limit.
    package let startUp: Duration

    public init(executable: String, startUp: Duration = .seconds(10)) {
        (self.executable, self.startUp) = (executable, startUp)
    }

    /// This program's own binary: the appliance runs its trials with itself.
    public static var ofThisProgram: SubprocessEncoderTrials {
        SubprocessEncoderTrials(executable: URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path)
    }

    public func trial(_ candidate: String, video: ApplianceConfig.Video, library: FragmentLibrary, limit: Duration)
        async -> EncoderChoice.Trial
    {
        let element = EncoderCandidate.read(candidate, library: library).element
        let started = ContinuousClock.now
        let failed = { (result: EncoderChoice.Trial.Result, detail: String) in
            EncoderChoice.Trial(
                name: candidate, element: element, result: result, detail: detail,
                ms: Int((ContinuousClock.now - started) / .milliseconds(1)))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [
            "encoder-trial", "--pipelines-dir", library.directory, "--name", candidate, "--width", "\(video.width)",
            "--height", "\(video.height)", "--framerate", "\(video.framerate)", "--bitrate-kbps",
            "\(video.bitrateKbps)",
            "--keyframe-interval-s", "\(video.keyframeIntervalS)", "--speed-preset", video.speedPreset,
            "--limit-s", "\(limit.components.seconds)",
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return failed(.failed, "cannot start \(executable): \(error)")
        }
        let ended = await Self.wait(for: process, within: limit + startUp)
        guard ended else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return failed(.timedOut, "no answer within \((limit + startUp).components.seconds) s (killed)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        if process.terminationReason == .uncaughtSignal {
            return failed(.failed, "the trial crashed (signal \(process.terminationStatus))")
        }
        guard let line = data.split(separator: 0x0A).last,
            let trial = try? JSONDecoder().decode(EncoderChoice.Trial.self, from: Data(line))
        else {
            return failed(.failed, "the trial ended (status \(process.terminationStatus)) without an answer")
        }
        return trial
    }

    /// Waits for the child's end without holding a thread: its exit is polled every 50 ms.
    private static func wait(for process: Process, within limit: Duration) async -> Bool {
        let deadline = ContinuousClock.now + limit
        while process.isRunning {
            if ContinuousClock.now >= deadline || Task.isCancelled { return false }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return true
    }
}
