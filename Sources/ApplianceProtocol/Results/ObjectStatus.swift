/// Object detection (absent when `[objects] enabled` is off): the detector, the gray picture it cuts crops from, its
/// runs (each looks at every crop around the motion of the moment), frames skipped because a run was going on, runs
/// that failed, detections by label, the tracked labels present now with how many the last run found, and events.
public struct ObjectStatus: Codable, Sendable, Equatable {
    public var detector: String
    /// The labels that make events (`[objects] track`).
    public var track: [String]
    public var fps: Int
    public var width: Int
    public var height: Int
    public var runs: UInt64
    public var skipped: UInt64
    public var failures: UInt64
    public var detections: [String: UInt64]
    public var present: [String: Int]
    public var events: UInt64
    /// The mean run's time in milliseconds (0 before the first).
    public var meanRunMs: Double
    /// The share of one core the detector may use (`[objects] cpu_budget`; 0: no budget).
    public var cpuBudget: Double?
    /// Frames due while the detector rested to stay within its budget.
    public var held: UInt64?
    /// CPU seconds its runs took, all told (its thread's time).
    public var cpuS: Double?
    /// The runs a second it holds: `fps`, or fewer when its runs' mean CPU time would exceed the budget at `fps`.
    public var heldFps: Double?

    public init(
        detector: String, track: [String], fps: Int, width: Int, height: Int, runs: UInt64, skipped: UInt64,
        failures: UInt64,
        detections: [String: UInt64], present: [String: Int], events: UInt64, meanRunMs: Double
    ) {
        (self.detector, self.track, self.fps, self.width, self.height) = (detector, track, fps, width, height)
        (self.runs, self.skipped, self.failures, self.detections, self.present, self.events, self.meanRunMs) =
            (runs, skipped, failures, detections, present, events, meanRunMs)
    }
}
