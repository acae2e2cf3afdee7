import ApplianceProtocol
import AsyncAlgorithms
import Foundation
import Logging
import ServiceLifecycle

/// The encoder chosen at start and what has happened to it since: `status`, `ctl status` and the metrics read it.
final class EncoderSelection: Sendable {
    let selector: EncoderSelector
    private let choice: Locked<EncoderChoice>

    init(selector: EncoderSelector, choice: EncoderChoice) {
        self.selector = selector
        self.choice = Locked(choice)
    }

    var current: EncoderChoice { choice.withLock { $0 } }

    func update(_ change: (inout EncoderChoice) -> Void) { choice.withLock { change(&$0) } }
}

/// An encoder that fails while the daemon runs — a bus error from inside its bin, a flow error its guard kept
/// (`EncoderChain`), or no output for `stallAfter` while frames go in (`EncoderOutputJudge`) — is replaced: the clip
/// being recorded ends (reason `encoder_failed`), the next candidate that passes a trial in a child process is built
/// into the graph in place of the failed one (pinned: the same encoder again), and once its first frames reached the
/// encoded tee the recording goes on in a new clip. `encoder_failed`, the log, `status.encoder_choice` and this boot's
/// cached choice say which failed, why, and what replaced it.
struct EncoderFailover: Service, CustomStringConvertible {
    var description: String { "EncoderFailover" }
    let selection: EncoderSelection
    let graph: CaptureGraph
    let recorder: Recorder
    let events: EventHub
    let logger: Logger
    let stallAfter: Duration
    /// How long a new encoder has to give its first frame.
    var firstFrameWithin: Duration = .seconds(10)

    func run() async throws {
        var judge = EncoderOutputJudge(stallAfter: stallAfter)
        var failed: Set<String> = []
        for await _ in AsyncTimerSequence(interval: .milliseconds(250), clock: .continuous).cancelOnGracefulShutdown() {
            let chain = graph.encoderChain
            guard let reason = chain.takeFailure() ?? judge.sample(chain.counters.withLock { $0 }, at: .now) else { continue }
            await replace(reason: reason, failed: &failed)
            judge = EncoderOutputJudge(stallAfter: stallAfter)
        }
    }

    /// Ends the clip, builds the next encoder that works, renews the pre-record window and records on.
    private func replace(reason: String, failed: inout Set<String>) async {
        let old = selection.current
        logger.error("encoder \(old.encoder) (\(old.element)) failed: \(reason)")
        let ended = await recorder.endForEncoderFailure(note: "the encoder \(old.encoder) failed: \(reason)")
        failed.insert(old.encoder)
        var trials = old.trials
        var attempts = 0
        while !Task.isShuttingDownGracefully {
            guard let (next, searched) = await selection.selector.replacement(excluding: failed, earlier: trials) else {
                // Every candidate has failed in this run: start again from the first after a pause.
                logger.error("no H.264 encoder is left that works; trying them all again in 10 s")
                try? await Task.sleep(for: .seconds(10))
                (failed, trials) = ([], [])
                continue
            }
            trials = searched
            if let trouble = await build(next.name) {
                logger.error("encoder \(next.name) (\(next.element)) failed to start: \(trouble)")
                failed.insert(next.name)
                attempts += 1
                try? await Task.sleep(for: .seconds(min(attempts, 10)))  // a pinned encoder is tried again: not in a busy loop
                continue
            }
            let failure = EncoderFailure(encoder: old.encoder, element: old.element, reason: reason, next: next.name, nextElement: next.element)
            announce(failure, trials: trials)
            break
        }
        guard ended.wasRecording, !Task.isShuttingDownGracefully else { return }
        do {
            let started = try await recorder.start(title: ended.title)
            logger.notice("recording goes on in a new file after the encoder failed", metadata: ["id": "\(started.id)"])
        } catch {
            logger.error("cannot record again after the encoder failed: \(error)")
        }
    }

    /// Builds `encoder` into the graph and waits for its first access unit at the tee; nil once it gave one, else why not.
    private func build(_ encoder: String) async -> String? {
        let (chain, gate, outputs) = (graph.encoderChain, graph.gate, graph.outputs)
        do {
            try await blocking { try chain.replace(with: encoder) }
        } catch {
            return "\(error)"
        }
        let before = chain.counters.withLock { $0.encoded }
        // Frames pass (as for a live stream's viewer) until the new stream, with its caps, is at the tee: a new
        // recording's pad then starts with those caps, never the replaced encoder's.
        gate.holdForStreaming()
        defer { gate.releaseForStreaming() }
        let deadline = ContinuousClock.now + firstFrameWithin
        while chain.counters.withLock({ $0.encoded }) == before {
            if let failure = chain.takeFailure() { return failure }
            guard ContinuousClock.now < deadline else { return "no output within \(firstFrameWithin)" }
            try? await Task.sleep(for: .milliseconds(20))
        }
        let generation = chain.generation
        do {
            try await blocking { try outputs.renewVideoWindow(generation: generation) }
        } catch {
            logger.error("the pre-record window could not be renewed: \(error)")
        }
        return nil
    }

    private func announce(_ failure: EncoderFailure, trials: [EncoderChoice.Trial]) {
        let selector = selection.selector
        selection.update { choice in
            choice.encoder = failure.next
            choice.element = failure.nextElement
            choice.how = .failover
            choice.trials = trials
            choice.failures = (choice.failures ?? []) + [failure]
        }
        // A restart in this boot starts with the replacement, not the encoder that failed.
        if let cache = selector.cache, selector.video.encoder == ApplianceConfig.Video.autoEncoder {
            let candidates = EncoderCandidate.ordered(selector.video.encoderCandidates, library: selector.library)
            cache.store(selection.current, key: EncoderChoiceCache.key(candidates: candidates, video: selector.video))
        }
        logger.notice("encoder \(failure.next) (\(failure.nextElement)) replaces \(failure.encoder), which failed: \(failure.reason)")
        events.publish(.encoderFailed(failure))
    }
}
