import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import MotionAndSound
import ObjectDetection
import ServiceLifecycle

/// Runs the object detector on the objects branch's frames (off the streaming threads): each run looks at the crops
/// around the motion regions of the moment (`Crops.plan`), and `ObjectTracker` turns runs into objects that start
/// and end. A tracked label's start is `object_started`, its end `object_ended`. While no frame comes (no motion),
/// a tick a second lets objects end. A camera switch ends the objects of the old picture.
package final class ObjectService: Service, CustomStringConvertible {
    package var description: String { "ObjectService" }

    private let tap: ObjectTap
    private let motion: MotionTap
    private let detector: any ObjectDetector
    private let track: Set<String>
    private let zones: ObjectZones
    private let events: EventHub
    private let subscription: EventHub.Subscription
    private let logger: Logger
    private let camera: Locked<String?>
    /// Whose picture it watches (its switches, the channel its events name).
    private let scope: ChannelScope
    private let tracker: Locked<(tracker: ObjectTracker, lastRun: Date)>
    private let failureLog = Locked<Date>(.distantPast)
    /// Where an object's picture goes: taken when it starts (by the activity) and again when a run finds it with a
    /// score a tenth higher than the picture's, at most once a second, so the picture shows its best sighting.
    private let pictures: ActivityPictures?
    /// The detector's own thread: a run (5–130 ms of OpenCV) never holds a thread of Swift's cooperative pool, nor
    /// the shared blocking pool that cameras start on.
    private let detectorThread = AnalysisThread(name: "objects")

    /// Subscribes at once, so a camera switch published before the service group runs is not missed.
    package init(
        tap: ObjectTap, motion: MotionTap, detector: any ObjectDetector, tracker: ObjectTracker.Settings,
        track: [String],
        zones: ObjectZones = ObjectZones([]), events: EventHub, camera: String?, pictures: ActivityPictures? = nil,
        scope: ChannelScope = .only, logger: Logger
    ) {
        self.scope = scope
        (self.zones, self.pictures) = (zones, pictures)
        (self.tap, self.motion, self.detector, self.events, self.logger) = (tap, motion, detector, events, logger)
        self.track = Set(track)
        tap.detectorName.withLock { $0 = detector.name }
        tap.track.withLock { $0 = track }
        self.tracker = Locked((ObjectTracker(settings: tracker), .distantPast))
        self.camera = Locked(camera)
        subscription = events.subscribe()
    }

    package func run() async throws {
        await detectorThread.running(logger: logger) { await self.detectAndFollow() }
        events.unsubscribe(subscription.id)
        await publish(tracker.withLock { $0.tracker.endAll() })
        tap.update { $0.present = [:] }
    }

    private func detectAndFollow() async {
        logger.info(
            "object detection on",
            metadata: [
                "detector": "\(detector.name)", "fps": "\(tap.fps)", "size": "\(tap.width)x\(tap.height)",
                "cpu_budget": "\(tap.budget)",
                "track": "\(track.sorted().joined(separator: ","))",
            ])
        await runSideBySide(
            { await self.followSwitches() }, { await runSideBySide({ await self.detect() }, { await self.tick() }) })
    }

    private func followSwitches() async {
        for await record in subscription.events {
            guard case .cameraSwitched(let switched) = record.event, scope.owns(switched) else { continue }
            let ended = tracker.withLock { $0.tracker.endAll() }
            tap.update { $0.present = [:] }
            await publish(ended)
            camera.withLock { $0 = switched.to }
        }
    }

    private func detect() async {
        var shown: [String: MotionService.BestFrame] = [:]  // each present object's picture: its score and when
        for await sample in tap.samples {
            let started = ContinuousClock.now
            let frame = sample.frame
            let (found, failed, cpu) =
                await detectorThread.perform { [self] in measuredLook(at: frame) } ?? ([], false, 0)
            let ms = (ContinuousClock.now - started) / .milliseconds(1)
            let minScore = tracker.withLock { $0.tracker.settings.minScore }
            tap.ran(
                milliseconds: ms, cpuSeconds: cpu, detections: found.filter { $0.score >= minScore }.map(\.label),
                failed: failed)
            let (width, height) = (sample.frame.width, sample.frame.height)
            let tracked = found.filter { track.contains($0.label) && zones.keeps($0, width: width, height: height) }
            let (changes, present, starts) = tracker.withLock { t in
                t.lastRun = Date()
                let changes = t.tracker.run(tracked, at: sample.capturedAt)
                return (
                    changes, t.tracker.present,
                    Dictionary(
                        uniqueKeysWithValues: t.tracker.present.compactMap { l in t.tracker.startedAt(l).map { (l, $0) }
                        })
                )
            }
            let counts = Dictionary(tracked.map { ($0.label, 1) }, uniquingKeysWith: +)
            tap.update { s in
                s.present = Dictionary(uniqueKeysWithValues: present.map { ($0, counts[$0] ?? s.present[$0] ?? 1) })
            }
            await publish(changes)
            await betterPictures(tracked, starts: starts, shown: &shown, changes: changes, at: sample.capturedAt)
        }
    }

    /// Takes an object's picture again when this run saw it clearly better than the picture does.
    private func betterPictures(
        _ tracked: [ObjectDetection], starts: [String: Date], shown: inout [String: MotionService.BestFrame],
        changes: [ObjectTracker.Change], at now: Date
    ) async {
        for change in changes {
            switch change {
            case .started(let label, _, let best): shown[label] = MotionService.BestFrame(score: best.score, at: now)
            case .ended(let label, _, _, _): shown[label] = nil
            }
        }
        guard let pictures else { return }
        for (label, startedAt) in starts {
            guard let best = tracked.filter({ $0.label == label }).max(by: { $0.score < $1.score }),
                shown[label, default: MotionService.BestFrame()].better(best.score, at: now, by: 1.1)
            else { continue }
            _ = await pictures.capture(kind: .object, label: label, startedAt: startedAt, box: box(best))
        }
    }

    /// One run and its thread's CPU time (seconds), which the budget counts.
    private func measuredLook(at frame: Picture) -> ([ObjectDetection], failed: Bool, cpuS: Double) {
        let before = DetectorThread.cpuSeconds()
        let (found, failed) = look(at: frame)
        return (found, failed, DetectorThread.cpuSeconds() - before)
    }

    /// One run: every crop around motion, detections in the whole picture's pixels. A detector's failure is logged
    /// at most once a minute and the run counts as failed; it never ends the service.
    private func look(at frame: Picture) -> ([ObjectDetection], failed: Bool) {
        let crops = Crops.plan(
            motion.current.boxes, frameWidth: frame.width, frameHeight: frame.height,
            minWidth: detector.window.width, minHeight: detector.window.height)
        var found: [ObjectDetection] = []
        var failed = false
        for crop in crops {
            guard let part = frame.cropped(to: crop) else { continue }
            do {
                found += try detector.detect(part).map { d in
                    var moved = d
                    (moved.x, moved.y) = (d.x + Double(crop.x), d.y + Double(crop.y))
                    return moved
                }
            } catch {
                failed = true
                let now = Date()
                let due = failureLog.withLock { last -> Bool in
                    guard now.timeIntervalSince(last) >= 60 else { return false }
                    last = now
                    return true
                }
                if due { logger.error("objects: \(error)") }
            }
        }
        return (found, failed)
    }

    /// With no frames (no motion), a run with nothing found each second, so objects end `release_s` after last seen.
    private func tick() async {
        while (try? await Task.sleep(for: .seconds(1))) != nil {
            let now = Date()
            let (changes, present) = tracker.withLock { t -> ([ObjectTracker.Change], [String]) in
                guard now.timeIntervalSince(t.lastRun) >= 1 else { return ([], t.tracker.present) }
                t.lastRun = now
                return (t.tracker.run([], at: now), t.tracker.present)
            }
            tap.update { s in s.present = s.present.filter { present.contains($0.key) } }
            await publish(changes)
        }
    }

    private func publish(_ changes: [ObjectTracker.Change]) async {
        let camera = camera.withLock { $0 }
        for change in changes {
            switch change {
            case .started(let label, let at, let best):
                let event = ObjectEvent(
                    label: label, camera: camera, startedAt: at, score: Self.rounded(best.score), box: box(best),
                    channel: scope.events)
                tap.update { $0.events += 1 }
                events.publish(.objectStarted(event))
                logger.info("object: \(label) (score \(String(format: "%.2f", best.score)))")
            case .ended(let label, let startedAt, let lastSeen, let best):
                events.publish(
                    .objectEnded(
                        ObjectEvent(
                            label: label, camera: camera, startedAt: startedAt, endedAt: lastSeen,
                            score: Self.rounded(best.score), box: box(best), channel: scope.events)))
            }
        }
    }

    private func box(_ d: ObjectDetection) -> ObjectBox {
        let (w, h) = (Double(tap.width), Double(tap.height))
        func clamp(_ v: Double) -> Double { (min(1, max(0, v)) * 10_000).rounded() / 10_000 }
        return ObjectBox(x: clamp(d.x / w), y: clamp(d.y / h), width: clamp(d.width / w), height: clamp(d.height / h))
    }

    private static func rounded(_ score: Double) -> Double { (score * 1000).rounded() / 1000 }
}
