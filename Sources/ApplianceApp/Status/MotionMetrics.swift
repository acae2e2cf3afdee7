import ApplianceProtocol
import Engine

extension MetricsCollector {
    /// Motion and sound: whether each goes on, the latest motion score and sound level, frames looked at, events.
    static func detectionFamilies(motion: MotionTap?, sound: SoundTap?, objects: ObjectTap?) -> [MetricFamily] {
        var families: [MetricFamily] = []
        var events: [MetricSample] = []
        if let motion {
            let s = motion.current
            families += [
                MetricFamily(
                    "appliance_motion_active", .gauge, "1 while motion goes on (an event started and has not ended).",
                    value: s.active ? 1 : 0),
                MetricFamily(
                    "appliance_motion_score", .gauge,
                    "The latest frame's part of the watched picture in motion (0 to 1).", value: s.score),
                MetricFamily(
                    "appliance_motion_frames_total", .counter, "Frames motion detection looked at.",
                    value: Double(s.framesAnalysed)),
            ]
            events.append(MetricSample(Double(s.events), ["kind": "motion"]))
        }
        if let sound {
            let s = sound.current
            if let latest = s.latest {
                families.append(
                    MetricFamily(
                        "appliance_audio_level_dbfs", .gauge,
                        "The microphone's RMS level, loudest channel, dBFS (digital silence: -120).",
                        value: latest.rmsDb))
            }
            families.append(
                MetricFamily(
                    "appliance_sound_active", .gauge, "1 while sound above [sound] threshold_db goes on.",
                    value: s.active ? 1 : 0))
            events.append(MetricSample(Double(s.events), ["kind": "sound"]))
        }
        if let objects, objects.status != nil {
            let s = objects.current
            families += objectFamilies(s)
            events.append(MetricSample(Double(s.events), ["kind": "object"]))
        }
        if !events.isEmpty {
            families.append(MetricFamily("appliance_events_total", .counter, "Events noticed, by kind.", events))
        }
        return families
    }

    /// Objects: each run's time, runs, frames skipped while one went on, failures, detections and objects present by
    /// label.
    private static func objectFamilies(_ s: ObjectTap.State) -> [MetricFamily] {
        [
            .histogram(
                "appliance_object_run_ms",
                "Time of one object detector run (every crop around the motion of the moment), ms.",
                bounds: s.runMs.bounds, counts: s.runMs.counts, count: s.runMs.count, sum: s.runMs.sum.rounded3),
            MetricFamily(
                "appliance_object_frames_skipped_total", .counter,
                "Frames not looked at because a detector run was going on.",
                value: Double(s.skipped)),
            MetricFamily(
                "appliance_object_frames_held_total", .counter,
                "Frames not looked at because the detector rested to stay within its CPU budget.",
                value: Double(s.held)),
            MetricFamily(
                "appliance_object_cpu_seconds_total", .counter, "CPU time of the detector's runs (its thread's).",
                value: s.cpuS.rounded3),
            MetricFamily(
                "appliance_object_run_failures_total", .counter,
                "Detector runs that failed (the model's error is logged).",
                value: Double(s.failures)),
            MetricFamily(
                "appliance_object_detections_total", .counter, "Detections at [objects] min_score or above, by label.",
                s.detections.keys.sorted().map { MetricSample(Double(s.detections[$0]!), ["label": $0]) }),
            MetricFamily(
                "appliance_objects_present", .gauge,
                "Tracked objects present now, by label (how many the last run found).",
                s.present.keys.sorted().map { MetricSample(Double(s.present[$0]!), ["label": $0]) }),
        ]
    }
}
