import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import ServiceLifecycle

/// Records on events (`[recording] trigger`): follows motion, sound and object events and the recorder's own, and sends
/// `record.start` and `record.stop` through the one entry point, as a button would. `EventTrigger` decides; this
/// applies it, waking at the end of a recording's tail. Each channel has its own (`ChannelScope`): its detectors'
/// events start and stop its recordings alone; the device's sound counts for every channel whose trigger names it.
package final class EventRecordingService: Service, CustomStringConvertible {
    package var description: String { "EventRecordingService" }

    private let events: EventHub
    private let subscription: EventHub.Subscription
    private let perform: @Sendable (Command) async throws(ApplianceError) -> CommandResult
    private let logger: Logger
    private let trigger: Locked<EventTrigger>
    private let wake = WakeSignal()
    /// This trigger's stop while it is being performed: a start decided meanwhile (the event came back as its tail
    /// ended) waits for it, so that the recorder does not see it before the stop, refuse it, and lose the event.
    private let stopping = Locked<OneShot<Bool>?>(nil)
    /// The last recording this trigger stopped: its `recording_stopped` may be read after the next recording
    /// started (a start that waited for that stop), and must not end the new one's ownership.
    private let stoppedByTrigger = Locked<String?>(nil)
    private let scope: ChannelScope

    /// Subscribes at once, so an event published before the service group runs is not missed.
    package init(
        trigger: EventTrigger, events: EventHub, scope: ChannelScope = .only, logger: Logger,
        perform: @escaping @Sendable (Command) async throws(ApplianceError) -> CommandResult
    ) {
        (self.events, self.perform, self.logger, self.scope) = (events, perform, logger, scope)
        self.trigger = Locked(trigger)
        subscription = events.subscribe()
    }

    package func run() async throws {
        logger.info(
            "recording on events",
            metadata: ["trigger": "\(trigger.withLock { $0.kinds.sorted().joined(separator: "+") })"])
        await runSideBySide({ await self.follow() }, { await self.endTails() })
        events.unsubscribe(subscription.id)
    }

    /// The trigger's clock: seconds on the monotonic clock, so that a wall clock set forwards or backwards (the first
    /// NTP sync of a board without an RTC) neither ends a recording early nor keeps it going for days.
    private static var now: Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// When an event that was announced now ended, on the trigger's clock: a detector says an event ended once it
    /// has been quiet a while (motion: `release_s`), and the tail counts from the last motion, not from that.
    private static func ended(_ endedAt: Date?, now: Double) -> Double {
        guard let endedAt else { return now }
        return now - min(60, max(0, Date().timeIntervalSince(endedAt)))
    }

    private func follow() async {
        for await record in subscription.events where owns(record.event) {
            let now = Self.now
            let action: EventTrigger.Action? = trigger.withLock { t in
                switch record.event {
                case .motionStarted: return t.started("motion", at: now)
                case .soundStarted: return t.started("sound", at: now)
                case .motionEnded(let m): t.ended("motion", at: Self.ended(m.endedAt, now: now))
                case .soundEnded(let s): t.ended("sound", at: Self.ended(s.endedAt, now: now))
                case .objectStarted(let o): return t.started(EventTrigger.object(o.label), at: now)
                case .objectEnded(let o): t.ended(EventTrigger.object(o.label), at: Self.ended(o.endedAt, now: now))
                // A clip ended by an encoder's failure goes on in the next one (`EncoderFailover`): still this
                // trigger's recording, which its tail must end (it ran to max_duration_s).
                case .recordingStopped(let r)
                where r.stopReason != .encoderFailed && r.id != stoppedByTrigger.withLock({ $0 }):
                    t.recordingEnded()
                default: break
                }
                return nil
            }
            if action == .start { await start() }
            wake.signal()
        }
    }

    /// Sleeps until the tail of the recording has passed (or something changed), then stops it.
    private func endTails() async {
        while !Task.isCancelled {
            let stopAt = trigger.withLock { $0.stopAt }
            let deadline = stopAt.map { ContinuousClock.now + .milliseconds(Int64(max(0, $0 - Self.now) * 1000)) }
            await wake.wait(until: deadline)
            let stop = OneShot<Bool>()
            let due = trigger.withLock { t in
                guard t.tick(at: Self.now) == .stop else { return false }
                stopping.withLock { $0 = stop }
                return true
            }
            guard due else { continue }
            do {
                let stopped = try await perform(.recordStop(title: nil, channel: scope.records))
                if case .recordingStopped(let result) = stopped { stoppedByTrigger.withLock { $0 = result.id } }
            } catch {
                logger.warning("the recording started by an event could not be stopped: \(error.message)")
            }
            stopping.withLock { if $0 === stop { $0 = nil } }
            stop.fire(true)
        }
    }

    /// Whether an event is this channel's: its detectors' events, its recordings, and the sound (every channel's).
    private func owns(_ event: ApplianceEvent) -> Bool {
        switch event {
        case .motionStarted(let e), .motionEnded(let e): scope.owns(channel: e.channel)
        case .objectStarted(let e), .objectEnded(let e): scope.owns(channel: e.channel)
        case .recordingStopped(let r): scope.owns(r)
        default: true
        }
    }

    private func start() async {
        if let stop = stopping.withLock({ $0 }) {
            logger.info("an event came as its recording was being stopped: the next starts once that one is finalised")
            _ = await stop.wait(timeout: .seconds(60))
        }
        do {
            _ = try await perform(.recordStart(title: nil, channel: scope.records))
        } catch {
            // One was going on already (started by hand): not this trigger's to stop.
            trigger.withLock { $0.startRefused() }
            logger.info("an event came while recording: \(error.message)")
        }
    }
}
