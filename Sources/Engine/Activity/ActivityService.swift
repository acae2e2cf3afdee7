import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import ServiceLifecycle

/// Turns the detectors' events into activity records: `motion_started` and `sound_started` store one, their `_ended`
/// closes it (with its peak, zones and picture). At start it closes what the last run left open, and every hour it
/// forgets activity older than `event_keep_days`. Each channel has its own (`ChannelScope`): its motion and objects,
/// stored as its activity; the sound is the first channel's.
package final class ActivityService: Service, CustomStringConvertible {
    package var description: String { "ActivityService" }

    private let log: ActivityLog
    private let events: EventHub
    private let subscription: EventHub.Subscription
    private let logger: Logger
    /// The activity going on, per kind (one motion and one sound at a time, as the detectors announce them) and, for
    /// objects, per label (one `person`, one `car`).
    private let open = Locked<[Key: Activity]>([:])
    private let scope: ChannelScope

    private struct Key: Hashable {
        var kind: Activity.Kind
        var label: String?
    }
    static let tidyInterval: Duration = .seconds(3600)

    /// Subscribes at once, so an event published before the service group runs is not missed.
    package init(log: ActivityLog, events: EventHub, scope: ChannelScope = .only, logger: Logger) {
        (self.log, self.events, self.logger, self.scope) = (log, events, logger, scope)
        subscription = events.subscribe()
    }

    package func run() async throws {
        if scope.events == nil { await log.tidy() }  // the first channel's tidies every channel's
        await runSideBySide({ await self.follow() }, { await self.tidyHourly() })
        events.unsubscribe(subscription.id)
        // Stopped during an activity: it ends now (a crash leaves it to the next start's tidy).
        // In a task of its own: the group may already cancel this one, and a cancelled write would leave them open.
        let going = open.withLock { $0 }
        await Task {
            for (key, _) in going { await self.end(key, at: Date(), update: { _ in }) }
        }.value
    }

    private func tidyHourly() async {
        while (try? await Task.sleep(for: Self.tidyInterval)) != nil { await log.tidy() }
    }

    private func follow() async {
        var camera = await log.activeCamera()
        for await record in subscription.events where owns(record.event) {
            switch record.event {
            case .cameraSwitched(let switched): camera = switched.to
            case .motionStarted(let e):
                await begin(
                    Activity(
                        id: 0, kind: .motion, camera: e.camera, startedAt: e.startedAt, zones: e.zones,
                        peak: e.peakScore, channel: e.channel))
            case .motionEnded(let e):
                await end(Key(kind: .motion), at: e.endedAt ?? Date()) { a in (a.zones, a.peak) = (e.zones, e.peakScore)
                }
            case .soundStarted(let e):
                var activity = Activity(id: 0, kind: .sound, camera: camera, startedAt: e.startedAt, peak: e.peakDb)
                activity.thumbnail = await log.pictures.capture(kind: .sound, startedAt: e.startedAt)
                await begin(activity)
            case .soundEnded(let e):
                await end(Key(kind: .sound), at: e.endedAt ?? Date()) { $0.peak = e.peakDb }
            case .objectStarted(let e):
                var activity = Activity(
                    id: 0, kind: .object, label: e.label, camera: e.camera, startedAt: e.startedAt, peak: e.score,
                    box: e.box, channel: e.channel)
                activity.thumbnail = await log.pictures.capture(
                    kind: .object, label: e.label, startedAt: e.startedAt, box: e.box)
                await begin(activity)
            case .objectEnded(let e):
                await end(Key(kind: .object, label: e.label), at: e.endedAt ?? Date()) { a in
                    (a.peak, a.box) = (e.score, e.box)
                }
            default:
                break
            }
        }
    }

    /// Whether an event is this channel's to record: its switches, its detectors' events, and the sound for the first.
    private func owns(_ event: ApplianceEvent) -> Bool {
        switch event {
        case .cameraSwitched(let switched): scope.owns(switched)
        case .motionStarted(let e), .motionEnded(let e): scope.owns(channel: e.channel)
        case .objectStarted(let e), .objectEnded(let e): scope.owns(channel: e.channel)
        case .soundStarted, .soundEnded: scope.events == nil
        default: false
        }
    }

    private func begin(_ activity: Activity) async {
        do {
            let stored = try await log.begin(activity)
            open.withLock {
                $0[Key(kind: activity.kind, label: activity.kind == .object ? activity.label : nil)] = stored
            }
        } catch {
            logger.error(
                "activity: the \(activity.kind.rawValue) at \(activity.startedAt) could not be stored: \(error)")
        }
    }

    private func end(_ key: Key, at endedAt: Date, update: (inout Activity) -> Void) async {
        guard var activity = open.withLock({ $0.removeValue(forKey: key) }) else { return }
        activity.endedAt = max(endedAt, activity.startedAt)
        update(&activity)
        do {
            try await log.end(activity)
        } catch {
            logger.error("activity \(activity.id) could not be closed: \(error)")
        }
    }
}
