import ApplianceProtocol
import Engine

extension MetricsCollector {
    /// Motion and sound: whether each goes on, the latest motion score and sound level, frames looked at, events.
    static func detectionFamilies(motion: MotionTap?, sound: SoundTap?) -> [MetricFamily] {
        var families: [MetricFamily] = []
        var events: [MetricSample] = []
        if let motion {
            let s = motion.current
            families += [
                MetricFamily("appliance_motion_active", .gauge, "1 while motion goes on (an event started and has not ended).", value: s.active ? 1 : 0),
                MetricFamily("appliance_motion_score", .gauge, "The latest frame's part of the watched picture in motion (0 to 1).", value: s.score),
                MetricFamily("appliance_motion_frames_total", .counter, "Frames motion detection looked at.", value: Double(s.framesAnalysed)),
            ]
            events.append(MetricSample(Double(s.events), ["kind": "motion"]))
        }
        if let sound {
            let s = sound.current
            if let latest = s.latest {
                families.append(MetricFamily("appliance_audio_level_dbfs", .gauge,
                                             "The microphone's RMS level, loudest channel, dBFS (digital silence: -120).", value: latest.rmsDb))
            }
            families.append(MetricFamily("appliance_sound_active", .gauge, "1 while sound above [sound] threshold_db goes on.", value: s.active ? 1 : 0))
            events.append(MetricSample(Double(s.events), ["kind": "sound"]))
        }
        if !events.isEmpty { families.append(MetricFamily("appliance_events_total", .counter, "Events noticed, by kind.", events)) }
        return families
    }
}
