import ApplianceBase
import ApplianceProtocol
import AsyncAlgorithms
import Logging
import ServiceLifecycle

/// Tells systemd what the daemon is doing (only when it was started with `$NOTIFY_SOCKET`):
/// - `READY=1` once the control socket answers and the first frame has passed the camera selector (`Readiness`);
/// - `STATUS=` the human line (`StatusLine`) on state changes, and while recording as the time ticks;
/// - `WATCHDOG=1` at half of `WATCHDOG_USEC`, only if output frames advanced and the bus thread turned over the
///   last tick, so a daemon whose pipeline hangs is restarted even though its process is still there;
/// - `WATCHDOG=trigger` as soon as the liveness monitor reports a stall, rather than waiting out the interval;
/// - `STOPPING=1` when graceful shutdown begins. It is the last service in the group, so it hears of it first.
package final class SystemdNotifier: Service, Sendable, CustomStringConvertible {
    package var description: String { "SystemdNotifier" }

    private let manager: ServiceManager
    private let readiness: Readiness
    private let liveness: LivenessMonitor
    private let events: EventHub
    private let perform: @Sendable (Command) async throws(ApplianceError) -> CommandResult
    private let logger: Logger
    /// What was sent last, the counters at the last tick, and when the watchdog was last pinged.
    private let last = Locked<(status: String?, frames: UInt64?, busTurns: UInt64?, ping: ContinuousClock.Instant?)>(
        (nil, nil, nil, nil))

    package init(
        manager: ServiceManager, readiness: Readiness, liveness: LivenessMonitor, events: EventHub, logger: Logger,
        perform: @escaping @Sendable (Command) async throws(ApplianceError) -> CommandResult
    ) {
        (self.manager, self.readiness, self.liveness, self.events) = (manager, readiness, liveness, events)
        (self.logger, self.perform) = (logger, perform)
    }

    /// The status line's refresh: at most 5 s, and a whole fraction of half the watchdog interval, so that pings
    /// fall exactly at half the interval (WatchdogSec=30s: a tick every 5 s, a ping every third).
    package var tick: Duration {
        guard let watchdog = manager.watchdogInterval else { return .seconds(5) }
        let half = watchdog / 2
        return half / max(1, Int((half / .seconds(5)).rounded(.up)))
    }

    /// Pings go out at half the watchdog interval (systemd's advice), on the first tick at or past it; a little
    /// slack keeps a tick that fires a hair early from skipping a whole period.
    private func pingDue(now: ContinuousClock.Instant) -> Bool {
        guard let watchdog = manager.watchdogInterval else { return false }
        let previous = last.withLock { $0.ping }
        return previous.map { now - $0 >= watchdog / 2 - tick / 10 } ?? true
    }

    package func run() async throws {
        let subscription = events.subscribe()
        defer { events.unsubscribe(subscription.id) }
        logger.info(
            "systemd notify socket \(manager.socket.path)",
            metadata: [
                "watchdog_s": "\(manager.watchdogInterval.map { "\(FlowJudge.seconds($0))" } ?? "off")"
            ])
        send("STATUS=starting")
        while !(await readiness.wait(timeout: .seconds(1))) {
            if Task.isShuttingDownGracefully || Task.isCancelled {
                send("STOPPING=1")
                return
            }
        }
        var ready = ["READY=1"]
        if let line = await statusLine() { ready.append("STATUS=" + line) }
        send(ready.joined(separator: "\n"))
        (_, _) = sampleAdvanced()  // the watchdog counts from here
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await _ in AsyncTimerSequence(interval: self.tick, clock: .continuous).cancelOnGracefulShutdown() {
                    await self.onTick()
                }
            }
            group.addTask {
                for await record in subscription.events.cancelOnGracefulShutdown() { await self.on(record.event) }
            }
        }
        send("STOPPING=1\nSTATUS=stopping: finishing the recording")
    }

    private func onTick() async {
        var lines: [String] = []
        let (framesMoved, busTurned) = sampleAdvanced()
        let now = ContinuousClock.now
        if pingDue(now: now), framesMoved, busTurned, liveness.currentStall == nil {
            lines.append("WATCHDOG=1")
            last.withLock { $0.ping = now }
            liveness.state.withLock { $0.watchdogPings += 1 }
        }
        if let status = await changedStatusLine() { lines.append("STATUS=" + status) }
        if !lines.isEmpty { send(lines.joined(separator: "\n")) }
    }

    private func on(_ event: ApplianceEvent) async {
        switch event {
        case .backupProgress, .deviceAdded, .deviceRemoved, .thumbnailReady:
            return  // frequent, and not what the status line shows
        case .stalled(let stall):
            // systemd applies the unit's watchdog action now (abort, then Restart=on-failure).
            send("WATCHDOG=trigger\nSTATUS=" + ((await statusLine()) ?? "STALLED: \(stall.reason)"))
            logger.error("asked systemd to restart the daemon: \(stall.reason)")
        default:
            if let status = await changedStatusLine() { send("STATUS=" + status) }
        }
    }

    /// Whether output frames and bus turns moved since the previous call.
    private func sampleAdvanced() -> (frames: Bool, busTurns: Bool) {
        let now = liveness.counters
        return last.withLock { l in
            defer { (l.frames, l.busTurns) = (now.frames, now.busTurns) }
            return (l.frames.map { now.frames > $0 } ?? false, l.busTurns.map { now.busTurns > $0 } ?? false)
        }
    }

    private func statusLine() async -> String? {
        guard case .status(let report)? = try? await perform(.status) else { return nil }
        let line = StatusLine.make(report, stall: liveness.currentStall?.reason)
        last.withLock { $0.status = line }
        return line
    }

    /// The status line if it differs from the one sent last.
    private func changedStatusLine() async -> String? {
        let previous = last.withLock { $0.status }
        guard let line = await statusLine(), line != previous else { return nil }
        return line
    }

    private func send(_ message: String) {
        if !manager.socket.send(message) {
            logger.debug("systemd notify: could not send \(message.prefix(40))")
        }
    }
}
