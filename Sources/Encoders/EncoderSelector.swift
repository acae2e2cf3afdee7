import ApplianceProtocol
import Engine
import Foundation
import Logging
import Settings

/// `[video] encoder = "auto"`: the first candidate that passes its trial, hardware first; the choice is cached for
/// the boot (`EncoderChoiceCache`). A pinned encoder is used as it is, untried (the graph's start says if it fails).
package struct EncoderSelector {
    package let video: ApplianceConfig.Video
    package let library: FragmentLibrary
    package let runner: any EncoderTrialRunner
    /// nil: neither read nor written (doctor reads it only).
    package let cache: EncoderChoiceCache?
    package var writesCache = true
    package let logger: Logger

    package init(
        video: ApplianceConfig.Video, library: FragmentLibrary, runner: any EncoderTrialRunner,
        cache: EncoderChoiceCache?,
        writesCache: Bool = true, logger: Logger
    ) {
        (self.video, self.library, self.runner, self.cache, self.writesCache, self.logger) = (
            video, library, runner, cache, writesCache, logger
        )
    }

    package func choose() async throws -> EncoderChoice {
        guard video.encoder == ApplianceConfig.Video.autoEncoder else {
            return EncoderChoice(
                encoder: video.encoder, element: EncoderCandidate.read(video.encoder, library: library).element,
                how: .pinned)
        }
        let candidates = EncoderCandidate.ordered(video.encoderCandidates, library: library)
        let key = EncoderChoiceCache.key(candidates: candidates, video: video)
        if var cached = cache?.load(matching: key) {
            cached.how = .cached
            logger.info("encoder \(cached.encoder) (\(cached.element)), chosen earlier in this boot")
            return cached
        }
        let present = candidates.filter(\.isPresent)
        let answers = await StaggeredTrials(runner: runner, video: video, library: library).run(present)
        let answered = Dictionary(
            answers.map { (present[$0.key].name, $0.value) }, uniquingKeysWith: { first, _ in first })
        var trials: [EncoderChoice.Trial] = []
        var chosen: EncoderChoice.Trial?
        for candidate in candidates {
            guard chosen == nil else {
                trials.append(
                    .init(name: candidate.name, element: candidate.element, result: .notTried, detail: "", ms: 0))
                continue
            }
            guard candidate.isPresent else {
                let missing = candidate.factories.filter { $0.value == nil }.keys.sorted()
                trials.append(
                    .init(
                        name: candidate.name, element: candidate.element, result: .absent,
                        detail: candidate.fragment.isEmpty
                            ? "no fragment encoders/\(candidate.name).gst"
                            : "not installed: \(missing.joined(separator: ", "))", ms: 0))
                continue
            }
            let trial =
                answered[candidate.name]
                ?? .init(name: candidate.name, element: candidate.element, result: .notTried, detail: "", ms: 0)
            trials.append(trial)
            if trial.result == .passed {
                chosen = trial
            } else {
                logger.warning(
                    "encoder \(candidate.name) (\(candidate.element)) \(trial.result.rawValue): \(trial.detail)")
            }
        }
        guard let chosen else {
            if let provisional = Self.provisional(candidates, trials: trials) {
                logger.warning(
                    """
                    no encoder trial answered in time (a busy start?): recording on \(provisional.encoder) \
                    (\(provisional.element)) untried, judged as it runs; the trials run again at the next start
                    """
                )
                return provisional
            }
            throw NoEncoderWorks(trials: trials)
        }
        let choice = EncoderChoice(encoder: chosen.name, element: chosen.element, how: .trial, trials: trials)
        if writesCache { cache?.store(choice, key: key) }
        logger.info(
            "encoder \(chosen.name) (\(chosen.element)) chosen by trial: \(chosen.detail)",
            metadata: [
                "trials": "\(trials.map { "\($0.name)=\($0.result.rawValue)" }.joined(separator: ","))"
            ])
        return choice
    }

    /// When nothing passed, the first software encoder whose trial timed out (the machine too busy to answer is not
    /// the encoder saying no, as a failed trial does): it needs no driver that could hang, and it is judged as it runs.
    package static func provisional(_ candidates: [EncoderCandidate], trials: [EncoderChoice.Trial]) -> EncoderChoice? {
        let timedOut = Set(trials.filter { $0.result == .timedOut }.map(\.name))
        guard let software = candidates.first(where: { $0.isSoftware && timedOut.contains($0.name) }) else {
            return nil
        }
        return EncoderChoice(encoder: software.name, element: software.element, how: .provisional, trials: trials)
    }
}

/// Every candidate failed its trial: the one line `appliance run` prints, naming each with its result.
package struct NoEncoderWorks: Error, CustomStringConvertible {
    package let trials: [EncoderChoice.Trial]
    package var description: String {
        "no H.264 encoder works: "
            + trials.map { "\($0.name) \($0.result.rawValue)\($0.detail.isEmpty ? "" : " (\($0.detail))")" }
            .joined(separator: "; ")
    }
}
