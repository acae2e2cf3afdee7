import ApplianceBase
import ApplianceProtocol
import AsyncAlgorithms
import Engine
import Foundation
import Logging
import ServiceLifecycle
import Settings

/// The encoder chosen at start and what has happened to it since: `status`, `ctl status` and the metrics read it.
package final class EncoderSelection: Sendable {
    package let selector: EncoderSelector
    private let choice: Locked<EncoderChoice>

    package init(selector: EncoderSelector, choice: EncoderChoice) {
        self.selector = selector
        self.choice = Locked(choice)
    }

    package var current: EncoderChoice { choice.withLock { $0 } }

    package func update(_ change: (inout EncoderChoice) -> Void) { choice.withLock { change(&$0) } }
}

/// An encoder that fails while the daemon runs — a bus error from inside its bin, a flow error its guard kept
/// (`EncoderChain`), or no output for `stallAfter` while frames go in (`EncoderOutputJudge`) — is replaced, and no
/// frame the camera gives after the failure is lost to it:
/// - at once, nothing more goes into it: the raw frames wait in the encoder's queue (`EncoderChain.holdInput`), and
///   the pre-record window, with the frames it gave before, is taken off the encoded tee (`retireVideoWindow`);
/// - the clip being recorded ends with the last frame it gave (reason `encoder_failed`), at once;
/// - the next candidate is chosen: the one tried ahead of need (`prepare`, a minute after start), or the next that
///   passes a trial in a child process now (pinned: the same encoder again);
/// - a clip started meanwhile holds the frames the failed encoder gave before (its pre-roll) and ends there too;
/// - the new encoder is built behind the held queue, and begins with the frames held there; a new window is linked
///   to the tee at its first access unit, so it holds the new stream from its first keyframe;
/// - a recording that was going on goes on in a new clip from that first frame; one that starts within
///   `pre_record_s` after the failure gets the frames before it in a clip of its own first (`Recorder.start`).
/// `encoder_failed`, the log, `status.encoder_choice` and this boot's cached choice say which failed, why, and what
/// replaced it. (A stall of the encoder loses what it swallowed before it was judged stalled.)
package struct EncoderFailover: Service, CustomStringConvertible {
    package var description: String { "EncoderFailover" }
    package let selection: EncoderSelection
    package let graph: CaptureGraph
    /// The graph's encoder chain (a graph that stores a camera's stream as sent has none, and no failover).
    let chain: EncoderChain
    package let recorder: Recorder
    package let events: EventHub
    package let logger: Logger
    package let stallAfter: Duration
    /// The channel whose encoder it watches, named in `encoder_failed` (nil: the first channel's).
    package var channel: String?
    /// How long a new encoder has to give its first frame.
    package var firstFrameWithin: Duration = .seconds(10)
    /// When the next candidate is tried ahead of need (in a child process, once): late enough not to slow the start.
    package var prepareAfter: Duration = .seconds(60)

    package init(
        selection: EncoderSelection, graph: CaptureGraph, chain: EncoderChain, recorder: Recorder, events: EventHub,
        logger: Logger,
        stallAfter: Duration
    ) {
        (self.selection, self.graph, self.recorder, self.events, self.logger) = (
            selection, graph, recorder, events, logger
        )
        self.stallAfter = stallAfter
        self.chain = chain
    }

    package func run() async throws {
        var judge = EncoderOutputJudge(stallAfter: stallAfter)
        var state = FailoverState()
        let started = ContinuousClock.now
        for await _ in AsyncTimerSequence(interval: .milliseconds(250), clock: .continuous).cancelOnGracefulShutdown() {
            guard let reason = chain.takeFailure() ?? judge.sample(chain.counters.withLock { $0 }, at: .now) else {
                if !state.prepareTried, ContinuousClock.now - started >= prepareAfter { await prepare(&state) }
                continue
            }
            await replace(reason: reason, state: &state)
            judge = EncoderOutputJudge(stallAfter: stallAfter)
        }
    }

    /// What the failovers of this run know: the encoders that failed, the trials so far, and a replacement tried
    /// ahead of need.
    package struct FailoverState {
        var failed: Set<String> = []
        var trials: [EncoderChoice.Trial]?
        var prepared: EncoderChoice.Trial?
        var prepareTried = false
    }

    /// Tries the candidate that would replace the encoder in use now, so that a failover need not wait for a trial
    /// (the raw frames held meanwhile are a second's worth).
    private func prepare(_ state: inout FailoverState) async {
        state.prepareTried = true
        let current = selection.current
        guard selection.selector.video.encoder == ApplianceConfig.Video.autoEncoder else { return }
        guard
            let (next, trials) = await selection.selector.replacement(
                excluding: state.failed.union([current.encoder]),
                earlier: state.trials ?? current.trials)
        else { return }
        (state.prepared, state.trials) = (next, trials)
        logger.info(
            """
            encoder \(next.name) (\(next.element)) is ready to take over if \(current.encoder) fails (trial: \
            \(next.detail))
            """
        )
    }

    /// Holds the raw frames, ends the clip, builds the next encoder that works, and records on.
    private func replace(reason: String, state: inout FailoverState) async {
        let old = selection.current
        logger.error("encoder \(old.encoder) (\(old.element)) failed: \(reason)")
        let note = "the encoder \(old.encoder) failed: \(reason)"
        let outputs = graph.outputs
        chain.holdInput()
        _ = try? await blocking { outputs.retireVideoWindow() }
        await recorder.beginEncoderChange(note: note)
        var ended = await recorder.endForEncoderFailure(note: note)
        state.failed.insert(old.encoder)
        var attempts = 0
        while !Task.isShuttingDownGracefully {
            guard let (next, searched) = await nextCandidate(&state, old: old) else {
                // Every candidate has failed in this run: start again from the first after a pause.
                logger.error("no H.264 encoder is left that works; trying them all again in 10 s")
                try? await Task.sleep(for: .seconds(10))
                (state.failed, state.trials) = ([], [])
                continue
            }
            state.trials = searched
            // A clip that started meanwhile took the frames the failed encoder gave: it ends there too.
            let during = await recorder.endForEncoderFailure(note: note)
            if during.wasRecording { ended = during }
            if let trouble = await build(next.name) {
                logger.error("encoder \(next.name) (\(next.element)) failed to start: \(trouble)")
                state.failed.insert(next.name)
                attempts += 1
                // a pinned encoder is tried again: not in a busy loop
                try? await Task.sleep(for: .seconds(min(attempts, 10)))
                continue
            }
            var failure = EncoderFailure(
                encoder: old.encoder, element: old.element, reason: reason, next: next.name, nextElement: next.element)
            failure.channel = channel
            announce(failure, trials: searched)
            break
        }
        await recorder.endEncoderChange()
        guard ended.wasRecording, !Task.isShuttingDownGracefully else { return }
        do {
            let started = try await recorder.continueAfterEncoderChange(title: ended.title)
            logger.notice("recording goes on in a new file after the encoder failed", metadata: ["id": "\(started.id)"])
        } catch {
            logger.error("cannot record again after the encoder failed: \(error)")
        }
    }

    /// The candidate tried ahead of need if it has not failed since, else the next that passes a trial now.
    private func nextCandidate(_ state: inout FailoverState, old: EncoderChoice) async -> (
        EncoderChoice.Trial, [EncoderChoice.Trial]
    )? {
        if let prepared = state.prepared, !state.failed.contains(prepared.name) {
            state.prepared = nil
            return (prepared, state.trials ?? old.trials)
        }
        return await selection.selector.replacement(excluding: state.failed, earlier: state.trials ?? old.trials)
    }

    /// Builds `encoder` into the graph behind the held raw frames and waits for its first access unit at the tee;
    /// nil once it gave one, else why not. The next pre-record window is linked to the tee at that first unit.
    private func build(_ encoder: String) async -> String? {
        let (gate, outputs) = (graph.gate, graph.outputs)
        let before = chain.counters.withLock { $0.encoded }
        do {
            let generation = chain.generation + 1
            try await blocking {
                let linkWindow = try outputs.nextVideoWindow(generation: generation)
                try chain.replace(with: encoder, onFirstOutput: linkWindow)
            }
        } catch {
            return "\(error)"
        }
        // Frames pass (as for a live stream's viewer) until the new stream, with its caps, is at the tee.
        gate.holdForStreaming()
        defer { gate.releaseForStreaming() }
        let deadline = ContinuousClock.now + firstFrameWithin
        while chain.counters.withLock({ $0.encoded }) == before {
            if let failure = chain.takeFailure() { return failure }
            guard ContinuousClock.now < deadline else { return "no output within \(firstFrameWithin)" }
            try? await Task.sleep(for: .milliseconds(20))
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
        logger.notice(
            """
            encoder \(failure.next) (\(failure.nextElement)) replaces \(failure.encoder), which failed: \
            \(failure.reason)
            """
        )
        events.publish(.encoderFailed(failure))
    }
}
