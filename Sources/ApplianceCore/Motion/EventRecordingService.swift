import ApplianceProtocol
import Foundation
import Logging
import ServiceLifecycle

/// Records on events (`[recording] trigger`): follows motion and sound events and the recorder's own, and sends
/// `record.start` and `record.stop` through the one entry point, as a button would. `EventTrigger` decides; this
/// applies it, waking at the end of a recording's tail.
final class EventRecordingService: Service, CustomStringConvertible {
    var description: String { "EventRecordingService" }

    private let events: EventHub
    private let subscription: EventHub.Subscription
    private let perform: @Sendable (Command) async throws(ApplianceError) -> CommandResult
    private let logger: Logger
    private let trigger: Locked<EventTrigger>
    private let wake = WakeSignal()

    /// Subscribes at once, so an event published before the service group runs is not missed.
    init(trigger: EventTrigger, events: EventHub, logger: Logger,
         perform: @escaping @Sendable (Command) async throws(ApplianceError) -> CommandResult) {
        (self.events, self.perform, self.logger) = (events, perform, logger)
        self.trigger = Locked(trigger)
        subscription = events.subscribe()
    }

    func run() async throws {
        logger.info("recording on events", metadata: ["trigger": "\(trigger.withLock { $0.kinds.sorted().joined(separator: "+") })"])
        await runSideBySide({ await self.follow() }, { await self.endTails() })
        events.unsubscribe(subscription.id)
    }

    private func follow() async {
        for await record in subscription.events {
            let now = Date().timeIntervalSince1970
            let action: EventTrigger.Action? = trigger.withLock { t in
                switch record.event {
                case .motionStarted: return t.started("motion", at: now)
                case .soundStarted: return t.started("sound", at: now)
                case .motionEnded: t.ended("motion", at: now)
                case .soundEnded: t.ended("sound", at: now)
                case .recordingStopped: t.recordingEnded()
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
            let deadline = stopAt.map { ContinuousClock.now + .milliseconds(Int64(max(0, $0 - Date().timeIntervalSince1970) * 1000)) }
            await wake.wait(until: deadline)
            if trigger.withLock({ $0.tick(at: Date().timeIntervalSince1970) }) == .stop {
                do {
                    _ = try await perform(.recordStop(title: nil))
                } catch {
                    logger.warning("the recording started by an event could not be stopped: \(error.message)")
                }
            }
        }
    }

    private func start() async {
        do {
            _ = try await perform(.recordStart(title: nil))
        } catch {
            // One was going on already (started by hand): not this trigger's to stop.
            trigger.withLock { $0.startRefused() }
            logger.info("an event came while recording: \(error.message)")
        }
    }
}
