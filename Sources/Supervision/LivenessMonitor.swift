import ApplianceBase
import ApplianceProtocol
import AsyncAlgorithms
import Logging
import ServiceLifecycle

/// Watches that the daemon is really working once it is ready: output frames advance and the bus thread turns
/// (see `FlowJudge`). A stall is logged and published (`stalled`; `flowing` when it ends); under systemd the
/// notifier turns it into `WATCHDOG=trigger`, so a hung camera or a stuck pipeline gets the daemon restarted
/// instead of leaving a device that looks alive and records nothing. Runs with or without systemd.
package final class LivenessMonitor: Service, Sendable, CustomStringConvertible {
    package var description: String { "LivenessMonitor" }

    /// What the monitor has seen, for metrics and the status line.
    package struct State: Sendable {
        package var stall: Stall?
        package var stalls: UInt64 = 0
        package var watchdogPings: UInt64 = 0
    }

    package let state = Locked(State())
    /// Output frames and bus turns so far, read from the live graph (what the judge and the watchdog pings look at).
    private let readCounters: @Sendable () -> (frames: UInt64, busTurns: UInt64)
    /// The other channels' graphs (`[[channel]]`), by name, each judged on its own: one that stalls is a stall of
    /// the daemon, named.
    private let otherChannels: [(name: String, counters: Counters)]

    package typealias Counters = @Sendable () -> (frames: UInt64, busTurns: UInt64)
    private let readiness: Readiness
    private let events: EventHub
    private let logger: Logger
    package let stallAfter: Duration
    /// How often the counters are sampled.
    let period: Duration

    /// `stallAfter` defaults to 5 s, or the watchdog interval if that is shorter, so a stall is reported before
    /// systemd would give up on its own.
    package init(
        counters: @escaping Counters, otherChannels: [(name: String, counters: Counters)] = [], readiness: Readiness,
        events: EventHub, logger: Logger, watchdog: Duration?
    ) {
        (self.readCounters, self.readiness, self.events, self.logger) = (counters, readiness, events, logger)
        self.otherChannels = otherChannels
        stallAfter = min(.seconds(5), watchdog ?? .seconds(5))
        period = min(.milliseconds(500), stallAfter / 4)
    }

    /// Output frames and bus turns so far (what the judge and the watchdog pings look at).
    package var counters: (frames: UInt64, busTurns: UInt64) { readCounters() }

    var currentStall: Stall? { state.withLock { $0.stall } }

    package func run() async throws {
        // Nothing to judge before the first frame (a camera may take seconds to start).
        while !(await readiness.wait(timeout: .seconds(1))) {
            if Task.isShuttingDownGracefully || Task.isCancelled { return }
        }
        var judge = FlowJudge(stallAfter: stallAfter)
        let others = otherChannels
        var otherJudges = others.map { _ in FlowJudge(stallAfter: stallAfter) }
        for await _ in AsyncTimerSequence(interval: period, clock: .continuous).cancelOnGracefulShutdown() {
            let now = ContinuousClock.now
            let (frames, turns) = counters
            var verdicts: [(channel: String?, verdict: FlowJudge.Verdict)] = [
                (nil, judge.sample(frames: frames, busTurns: turns, at: now))
            ]
            for index in others.indices {
                let (frames, turns) = others[index].counters()
                verdicts.append(
                    (others[index].name, otherJudges[index].sample(frames: frames, busTurns: turns, at: now)))
            }
            note(FlowJudge.combined(verdicts))
        }
    }

    private func note(_ verdict: FlowJudge.Verdict) {
        switch verdict {
        case .stalled(let reason, let seconds):
            let fresh = state.withLock { s -> Bool in
                let fresh = s.stall == nil
                if fresh { s.stalls += 1 }
                s.stall = Stall(reason: reason, seconds: seconds)  // its length so far, for the status line
                return fresh
            }
            guard fresh else { return }
            logger.error("stalled: \(reason)")
            events.publish(.stalled(Stall(reason: reason, seconds: seconds)))
        case .alive:
            let ended = state.withLock { s -> Stall? in
                let ended = s.stall
                s.stall = nil
                return ended
            }
            guard let ended else { return }
            logger.notice("flowing again after a stall (\(ended.reason))")
            events.publish(.flowing(Stall(reason: "frames flow again", seconds: ended.seconds)))
        case .quiet:
            break
        }
    }
}
