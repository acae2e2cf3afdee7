import ApplianceBase
import ApplianceProtocol
import Encoders
import Engine
import Foundation
import GStreamerKit
import Logging
import Settings

/// Check 7: the configured encoders really encode — a few frames through the same fragments the daemon uses. A
/// missing element names the package that brings it; an encoder slower than real time warns, because the live
/// graph's encoder queue is leaky and would drop frames.
enum EncoderCheck {
    static let videoName = "video-encoder"
    static let audioName = "audio-encoder"
    static let frames = 30

    /// `encoder = "auto"` resolved as the daemon would (this boot's cached choice, else a trial per candidate; the
    /// cache is only read); nil when pinned, or when no candidate works (the check then says why).
    static func choose(
        _ config: ApplianceConfig, fragments: Result<FragmentLibrary, any Error>,
        trials: any EncoderTrialRunner
    ) async -> Result<EncoderChoice, any Error>? {
        guard config.video.encoder == ApplianceConfig.Video.autoEncoder, case .success(let library) = fragments else {
            return nil
        }
        let selector = EncoderSelector(
            video: config.video, library: library, runner: trials, cache: EncoderChoiceCache(dataDir: config.dataDir),
            writesCache: false, logger: Logger(label: "doctor", factory: { _ in SwiftLogNoOpLogHandler() }))
        do { return .success(try await selector.choose()) } catch { return .failure(error) }
    }

    static func video(
        _ config: ApplianceConfig, fragments: Result<FragmentLibrary, any Error>,
        choice: Result<EncoderChoice, any Error>? = nil
    ) -> DoctorCheck {
        var v = config.video
        let library: FragmentLibrary
        switch fragments {
        case .success(let found): library = found
        case .failure(let error):
            return .fail(videoName, "not tried: \(error)", fix: "set pipelines_dir or APPLIANCE_PIPELINES")
        }
        var chosen = ""
        switch choice {
        case .success(let made)?:
            v.encoder = made.encoder
            chosen =
                "auto chose \(made.encoder) (\(made.how.rawValue): "
                + made.trials.filter { $0.result != .notTried }
                .map { "\($0.name) \($0.result.rawValue)" }.joined(separator: ", ") + "); "
        case .failure(let error)?:
            return .fail(
                videoName, "auto: \(error)",
                fix: "install a working H.264 encoder (gstreamer1.0-plugins-ugly for x264enc) or set [video] encoder")
        case nil: break
        }
        let outcome: EncodeTrial.Outcome
        do {
            outcome = try EncodeTrial.video(v, library: library, frames: frames)
        } catch {
            return .fail(
                videoName, chosen + "\(v.encoder): \(error)",
                fix: fix(for: error, library: library, configured: v.encoder))
        }
        let size = "\(v.width)x\(v.height)@\(v.framerate)"
        let detail =
            chosen
                + """
                \(v.encoder) encoded \(outcome.encoded) of \(frames) frames (\(size), \(v.bitrateKbps) kbit/s) in \
                \(outcome.elapsedMs) ms
                """
        guard outcome.encoded == frames else {
            return .fail(
                videoName, detail, fix: "run the fragment by hand with gst-launch-1.0 -v to see where frames are lost")
        }
        let realTimeMs = frames * 1000 / v.framerate
        if outcome.elapsedMs > realTimeMs {
            return .warn(
                videoName, detail + ", slower than real time (\(realTimeMs) ms of video)",
                fix:
                    """
                    lower [video] width/height or framerate, a faster speed_preset, or a hardware encoder (encoder \
                    = \"v4l2h264\")
                    """
            )
        }
        return .pass(videoName, detail)
    }

    static func audio(_ config: ApplianceConfig, fragments: Result<FragmentLibrary, any Error>) -> DoctorCheck {
        let a = config.audio
        guard a.source != "none" else { return .pass(audioName, "not used: audio is off") }
        let library: FragmentLibrary
        switch fragments {
        case .success(let found): library = found
        case .failure(let error):
            return .fail(audioName, "not tried: \(error)", fix: "set pipelines_dir or APPLIANCE_PIPELINES")
        }
        // About a second of sound.
        let buffers = max(1, a.rate / 1024)
        let outcome: EncodeTrial.Outcome
        do {
            outcome = try EncodeTrial.audio(a, library: library, buffers: buffers)
        } catch {
            return .fail(audioName, "aac: \(error)", fix: fix(for: error, library: library, configured: "aac"))
        }
        let seconds = String(format: "%.1f", Double(buffers * 1024) / Double(a.rate))
        let detail =
            """
            aac encoded \(seconds) s of \(a.rate) Hz \(a.channels == 1 ? "mono" : "stereo") into \
            \(outcome.encoded) frames 
            """
            + "(\(a.bitrateKbps) kbit/s) in \(outcome.elapsedMs) ms"
        // An encoder may hold back or add a priming frame or two; far fewer frames than buffers means it lost sound.
        guard outcome.encoded >= buffers - 2 else {
            return .fail(
                audioName, detail + ", expected about \(buffers)",
                fix: "run encoders/aac.gst by hand with gst-launch-1.0 -v")
        }
        return .pass(audioName, detail)
    }

    /// A missing element → its package; a missing fragment → the fragments there are.
    static func fix(for error: any Error, library: FragmentLibrary, configured: String) -> String {
        let message = "\(error)"
        if let element = PluginPackages.missingElement(in: message) { return PluginPackages.fix(forMissing: element) }
        if message.contains("not found in") {
            let available =
                ((try? FileManager.default.contentsOfDirectory(atPath: library.directory + "/encoders")) ?? [])
                .filter { $0.hasSuffix(".gst") && $0 != "aac.gst" }.map { String($0.dropLast(4)) }.sorted()
            return
                """
                set [video] encoder to one of: \(available.joined(separator: ", ")) (files in \
                \(library.directory)/encoders)
                """
        }
        return "check \(library.directory)/encoders/\(configured).gst with gst-launch-1.0"
    }
}
