import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import MotionAndSound
import ServiceLifecycle

/// Runs the sound detector on the microphone's level readings (`[sound] enabled`) and announces `sound_started` once
/// the level has stayed above the threshold for `min_duration_s`, `sound_ended` after the release time.
package final class SoundService: Service, CustomStringConvertible {
    package var description: String { "SoundService" }

    private let tap: SoundTap
    private let settings: SoundDetector.Settings
    private let events: EventHub
    private let logger: Logger

    package init(tap: SoundTap, settings: SoundDetector.Settings, events: EventHub, logger: Logger) {
        (self.tap, self.settings, self.events, self.logger) = (tap, settings, events, logger)
    }

    package func run() async throws {
        logger.info(
            "sound detection on",
            metadata: ["threshold_db": "\(settings.thresholdDb)", "min_duration_s": "\(settings.minDurationS)"])
        var detector = SoundDetector(settings: settings)
        var event: SoundEvent?
        for await reading in tap.readings.cancelOnGracefulShutdown() {
            let transition = detector.observe(rmsDb: reading.rmsDb, at: reading.at.timeIntervalSince1970)
            switch transition {
            case .started(let at)?:
                event = SoundEvent(startedAt: Date(timeIntervalSince1970: at), peakDb: detector.peakDb ?? reading.rmsDb)
                events.publish(.soundStarted(event!))
            case .ended(let at)?:
                if var ended = event {
                    ended.endedAt = Date(timeIntervalSince1970: at)
                    events.publish(.soundEnded(ended))
                }
                event = nil
            case nil:
                if let peak = detector.peakDb { event?.peakDb = peak }
            }
            let active = detector.active
            tap.update { state in
                state.active = active
                if case .started? = transition { state.events += 1 }
            }
        }
    }
}
