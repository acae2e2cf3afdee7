import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import MotionAndSound
import ServiceLifecycle

/// Runs the motion detector on the motion branch's frames (off the streaming threads) and announces what it finds:
/// `motion_started` once motion has lasted `[motion] min_duration_s`, `motion_ended` after the release time. A camera
/// switch starts the background again (the next frame is another picture) and ends an event going on.
package final class MotionService: Service, CustomStringConvertible {
    package var description: String { "MotionService" }

    private struct Shared: Sendable {
        var camera: String?
        var switched = false
    }

    private let tap: MotionTap
    private let settings: MotionSettings
    private let events: EventHub
    private let subscription: EventHub.Subscription
    private let logger: Logger
    private let shared: Locked<Shared>
    /// Whose picture it watches (its switches, the channel its events name).
    private let scope: ChannelScope
    /// Where each event's best frame goes: taken when motion starts and again whenever the score has grown by a
    /// quarter (at most once a second), so the picture shows the most change, not the first twitch.
    private let pictures: ActivityPictures?
    /// The detector, used on `analysis` alone (the lock is never contended).
    private let detector: Locked<MotionDetector>
    /// Motion's pixel loops (a few ms a frame in release, tens in a debug build) run here, not on the cooperative
    /// pool.
    private let analysis = AnalysisThread(name: "motion")

    /// Subscribes at once, so a camera switch published before the service group runs is not missed.
    package init(
        tap: MotionTap, settings: MotionSettings, events: EventHub, camera: String?, pictures: ActivityPictures?,
        scope: ChannelScope = .only, logger: Logger
    ) {
        (self.tap, self.settings, self.events, self.logger, self.pictures) = (tap, settings, events, logger, pictures)
        self.scope = scope
        subscription = events.subscribe()
        shared = Locked(Shared(camera: camera))
        detector = Locked(MotionDetector(settings: settings))
    }

    package func run() async throws {
        logger.info("motion detection on", metadata: ["fps": "\(tap.fps)", "size": "\(tap.width)x\(tap.height)"])
        await analysis.running(logger: logger) {
            await runSideBySide({ await self.followSwitches() }, { await self.detect() })
        }
        events.unsubscribe(subscription.id)
    }

    private func followSwitches() async {
        for await record in subscription.events {
            guard case .cameraSwitched(let switched) = record.event, scope.owns(switched) else { continue }
            shared.withLock { $0 = Shared(camera: switched.to, switched: true) }
        }
    }

    private func detect() async {
        var event: MotionEvent?
        var picture = BestFrame()
        for await sample in tap.samples {
            let (camera, switched) = shared.withLock { s in
                defer { s.switched = false }
                return (s.camera, s.switched)
            }
            let (frame, time) = (sample.frame, sample.capturedAt.timeIntervalSince1970)
            guard
                let (seen, active, ended) = await analysis.perform({ [detector] in
                    detector.withLock { d in
                        let ended = switched ? d.reset() : nil
                        return (d.observe(frame, at: time), d.active, ended)
                    }
                })
            else { break }
            if let ended { finish(&event, at: ended) }
            if var going = event {
                going.peakScore = max(going.peakScore, seen.score)
                going.zones = Self.union(going.zones, seen.zones, order: settings.zones.map(\.name))
                event = going
                if picture.better(seen.score, at: sample.capturedAt) { await capture(going) }
            }
            // The status first: a client that hears the event and asks finds it counted.
            tap.update { state in
                state.active = active
                state.score = seen.score
                state.boxes = seen.boxes
                state.framesAnalysed += 1
                if case .started? = seen.transition { state.events += 1 }
            }
            switch seen.transition {
            case .started(let at)?:
                event = MotionEvent(
                    camera: camera, startedAt: Date(timeIntervalSince1970: at), zones: seen.zones,
                    peakScore: seen.score, channel: scope.events)
                events.publish(.motionStarted(event!))
                picture = BestFrame(score: seen.score, at: sample.capturedAt)
                await capture(event!)
            case .ended?:
                finish(&event, at: seen.transition!)
            case nil:
                break
            }
        }
    }

    private func capture(_ event: MotionEvent) async {
        _ = await pictures?.capture(kind: .motion, startedAt: event.startedAt)
    }

    /// Publishes the end of the event going on (if any) and forgets it.
    private func finish(_ event: inout MotionEvent?, at transition: MotionDetector.Transition) {
        guard var ended = event, case .ended(let at) = transition else { return }
        ended.endedAt = Date(timeIntervalSince1970: at)
        events.publish(.motionEnded(ended))
        event = nil
    }

    /// When an event's picture is worth taking again: the score grew by a quarter (`by`), a second or more after the
    /// last.
    struct BestFrame {
        package var score = 0.0
        package var at = Date.distantPast

        mutating func better(_ newScore: Double, at now: Date, by factor: Double = 1.25) -> Bool {
            guard newScore > score * factor, now.timeIntervalSince(at) >= 1 else { return false }
            (score, at) = (newScore, now)
            return true
        }
    }

    /// The zones of `a` and `b`, each once, in the configured order.
    package static func union(_ a: [String], _ b: [String], order: [String]) -> [String] {
        let all = Set(a).union(b)
        return order.filter(all.contains)
    }
}
