import ApplianceProtocol
import Engine
import Settings

/// The trials of the present candidates, in their order, each started when the one before has answered or has run
/// its whole limit without answering. A trial's child may take its start-up allowance on top of the limit
/// (`SubprocessEncoderTrials.startUp`), and on a busy start every trial does: in the lab's busy start two software
/// trials timed out at 11.4 s each, one after the other, and the recording began 61 to 64 s after the start. Started
/// a limit apart, they overlap. The candidate chosen is still the first in order that passes: a later one that
/// passes first waits for the earlier ones' answers; once it is known, the trials still running are cancelled (their
/// children killed) and later candidates are not tried.
struct StaggeredTrials {
    let runner: any EncoderTrialRunner
    let video: ApplianceConfig.Video
    let library: FragmentLibrary

    private enum Event: Sendable {
        case answered(Int, EncoderChoice.Trial)
        case limitPassed(Int)
    }

    /// The answers by candidate index: every candidate up to the first that passed (or all, when none did).
    func run(_ present: [EncoderCandidate]) async -> [Int: EncoderChoice.Trial] {
        guard !present.isEmpty else { return [:] }
        let (runner, video, library, limit) = (runner, video, library, video.encoderTrialLimit)
        return await withTaskGroup(of: Event.self) { group in
            var answers: [Int: EncoderChoice.Trial] = [:]
            var started = 0
            func startNext() {
                let index = started
                let name = present[index].name
                started += 1
                group.addTask {
                    .answered(index, await runner.trial(name, video: video, library: library, limit: limit))
                }
                group.addTask {
                    try? await Task.sleep(for: limit)
                    return .limitPassed(index)
                }
            }
            startNext()
            while let event = await group.next() {
                switch event {
                case .answered(let index, let trial):
                    answers[index] = trial
                    if index == started - 1, trial.result != .passed, started < present.count { startNext() }
                case .limitPassed(let index):
                    if index == started - 1, answers[index] == nil, started < present.count { startNext() }
                }
                if Self.decided(answers, count: present.count) { break }
            }
            group.cancelAll()
            return answers
        }
    }

    /// Whether the choice is known: the first candidate that passed has every one before it answered, or every
    /// candidate has answered.
    private static func decided(_ answers: [Int: EncoderChoice.Trial], count: Int) -> Bool {
        for index in 0..<count {
            guard let answer = answers[index] else { return false }
            if answer.result == .passed { return true }
        }
        return true
    }
}
