import ApplianceBase
import ApplianceProtocol
import Engine
import Foundation
import GStreamerKit
import Settings

/// One candidate's trial: a second of test frames at the configured size, rate and bitrate through its fragment,
/// then parsed and decoded again. It passes only with decodable H.264 of the configured size: nearly every frame
/// back (an encoder may hold one or two at the end), in time.
public enum EncoderTrial {
    /// What one trial measured.
    package struct Measured: Sendable {
        var decoded: Int
        var width: Int
        var height: Int
        var ms: Int
        /// This process's CPU time a frame, from the first frame out to the last (the subprocess does nothing else).
        var cpuMsPerFrame: Double? = nil
    }

    /// How many frames a trial encodes: a second's, at least 10.
    package static func frames(_ video: ApplianceConfig.Video) -> Int { max(10, video.framerate) }

    /// Runs the trial here, in this process (the subprocess's body; in-process tests' runner). Blocks.
    public static func run(name: String, video: ApplianceConfig.Video, library: FragmentLibrary, limit: Duration)
        -> EncoderChoice.Trial
    {
        var pinned = video
        pinned.encoder = name
        let frames = Self.frames(video)
        let element = EncoderCandidate.read(name, library: library).element
        do {
            let measured = try EncodeTrial.decoded(pinned, library: library, frames: frames, timeout: limit)
            return judge(measured, frames: frames, video: video, name: name, element: element)
        } catch {
            // Not finished within its limit is a time-out, whichever side saw it (the parent kills a child that
            // outlives the limit and its start-up): on a busy board, both trials ran out of their own time, were
            // called failed, and the daemon found no encoder instead of recording on a provisional one (the lab).
            let late = (error as? GStreamerError)?.timedOut == true
            return EncoderChoice.Trial(
                name: name, element: element, result: late ? .timedOut : .failed, detail: "\(error)",
                ms: late ? Int(limit / .milliseconds(1)) : 0)
        }
    }

    package static func judge(_ m: Measured, frames: Int, video: ApplianceConfig.Video, name: String, element: String)
        -> EncoderChoice.Trial
    {
        let what = "\(m.decoded) of \(frames) frames decoded at \(m.width)x\(m.height) in \(m.ms) ms"
        let passed = m.decoded >= frames - 2 && m.width == video.width && m.height == video.height
        let why = m.decoded < frames - 2 ? ", too few" : passed ? "" : ", not \(video.width)x\(video.height)"
        return EncoderChoice.Trial(
            name: name, element: element, result: passed ? .passed : .failed, detail: what + why, ms: m.ms,
            cpuMsPerFrame: m.cpuMsPerFrame)
    }
}

/// How trials are run: in a child process for the daemon (a driver that crashes or hangs costs that candidate, not
/// the daemon), in this process for in-process tests.
public protocol EncoderTrialRunner: Sendable {
    func trial(_ candidate: String, video: ApplianceConfig.Video, library: FragmentLibrary, limit: Duration) async
        -> EncoderChoice.Trial
}

/// Trials in this process, on the blocking pool.
public struct InProcessEncoderTrials: EncoderTrialRunner {
    public init() {}

    public func trial(_ candidate: String, video: ApplianceConfig.Video, library: FragmentLibrary, limit: Duration)
        async -> EncoderChoice.Trial
    {
        (try? await blocking { EncoderTrial.run(name: candidate, video: video, library: library, limit: limit) })
            ?? EncoderChoice.Trial(
                name: candidate, element: candidate, result: .failed, detail: "the trial did not run", ms: 0)
    }
}
