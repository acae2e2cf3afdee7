import ApplianceProtocol

extension MetricsCollector {
    /// Motion detection, when `[motion] enabled`: whether motion goes on, the latest score, frames looked at, events.
    static func motionFamilies(_ tap: MotionTap?) -> [MetricFamily] {
        guard let tap else { return [] }
        let s = tap.current
        return [
            MetricFamily("appliance_motion_active", .gauge, "1 while motion goes on (an event started and has not ended).", value: s.active ? 1 : 0),
            MetricFamily("appliance_motion_score", .gauge, "The latest frame's part of the watched picture in motion (0 to 1).", value: s.score),
            MetricFamily("appliance_motion_frames_total", .counter, "Frames motion detection looked at.", value: Double(s.framesAnalysed)),
            MetricFamily("appliance_events_total", .counter, "Events noticed, by kind.", [MetricSample(Double(s.events), ["kind": "motion"])]),
        ]
    }
}
