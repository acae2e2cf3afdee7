import ApplianceProtocol
import Foundation
import Settings

extension EncoderSelector {
    /// The encoder to use after `failed` (those that failed while running, in this run) did: the next candidate in
    /// order that is not among them, did not fail its trial earlier (`earlier`), and passes a trial now; with the
    /// trials as they stand after this search. Pinned: the pinned encoder again (a new instance: a driver's error
    /// may be passing). Nil when no candidate is left.
    package func replacement(excluding failed: Set<String>, earlier: [EncoderChoice.Trial]) async -> (
        EncoderChoice.Trial, [EncoderChoice.Trial]
    )? {
        guard video.encoder == ApplianceConfig.Video.autoEncoder else {
            let element = EncoderCandidate.read(video.encoder, library: library).element
            return (
                EncoderChoice.Trial(name: video.encoder, element: element, result: .passed, detail: "pinned", ms: 0),
                earlier
            )
        }
        var trials = earlier
        let refused: Set<EncoderChoice.Trial.Result> = [.failed, .timedOut, .absent]
        for candidate in EncoderCandidate.ordered(video.encoderCandidates, library: library) where candidate.isPresent {
            let before = trials.firstIndex { $0.name == candidate.name }
            if failed.contains(candidate.name) || before.map({ refused.contains(trials[$0].result) }) == true {
                continue
            }
            let trial = await runner.trial(
                candidate.name, video: video, library: library, limit: video.encoderTrialLimit)
            if let before { trials[before] = trial } else { trials.append(trial) }
            if trial.result == .passed { return (trial, trials) }
            logger.warning("encoder \(candidate.name) (\(candidate.element)) \(trial.result.rawValue): \(trial.detail)")
        }
        return nil
    }
}
