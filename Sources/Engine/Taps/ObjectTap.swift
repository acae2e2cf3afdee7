import ApplianceBase
import ApplianceProtocol
import Foundation
import MotionAndSound
import ObjectDetection
import Synchronization

/// The objects branch's hand-over: gray frames from the appsink's streaming thread to `ObjectService`, only while the
/// motion detector sees motion, at most `[objects] fps`, and never while a run goes on (such a frame is skipped and
/// counted: a detector that takes longer than a frame's interval falls behind by frames, never by a queue), nor while
/// it rests after a run to stay within its CPU budget (`[objects] cpu_budget`; such a frame is counted as held).
public final class ObjectTap: Sendable {
    public struct Sample: Sendable {
        public let frame: Picture
        public let capturedAt: Date
    }

    /// What the detector did, for status and metrics.
    public struct State: Sendable, Equatable {
        public var runs: UInt64 = 0
        public var skipped: UInt64 = 0
        /// Frames due while the detector rested to stay within its CPU budget.
        public var held: UInt64 = 0
        public var failures: UInt64 = 0
        /// CPU seconds the runs took, all told.
        public var cpuS: Double = 0
        /// Detections at `min_score` or above, by label (tracked or not).
        public var detections: [String: UInt64] = [:]
        /// Tracked labels present now, and how many of each the last run found.
        public var present: [String: Int] = [:]
        /// Each run's time (all its crops), in milliseconds.
        public var runMs = Histogram(bounds: [5, 10, 25, 50, 100, 250, 500, 1000, 2500])
        public var events: UInt64 = 0
    }

    public let fps: Int
    /// The share of one core the detector may use (0: no budget).
    public let budget: Double
    public let width: Int
    public let height: Int
    /// 1: gray (HOG); 3: colour, B, G, R (a model).
    public let channels: Int
    public let samples: AsyncStream<Sample>
    private let continuation: AsyncStream<Sample>.Continuation
    private let motion: MotionTap
    private let minimumSpacing: UInt64
    private let lastAdmitted = Mutex<UInt64?>(nil)
    private let busy = Atomic<Bool>(false)
    /// Until when the detector rests after its last run (the budget), on the monotonic clock.
    private let restingUntil = Mutex<ContinuousClock.Instant?>(nil)
    private let off = Atomic<Bool>(false)
    private let state = Mutex(State())

    package init(fps: Int, width: Int, height: Int, channels: Int, motion: MotionTap, budget: Double = 0) {
        (self.fps, self.width, self.height, self.channels, self.motion) = (fps, width, height, channels, motion)
        self.budget = budget
        minimumSpacing = UInt64(1_000_000_000 / Double(fps) * 0.9)
        (samples, continuation) = AsyncStream.makeStream(of: Sample.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The branch probe's question, on the streaming thread: convert and hand over this frame? Only with motion, at
    /// most `fps` a second, and not while the last is being looked at (then it is counted as skipped).
    package func admit(runningTime: UInt64?) -> Bool {
        guard let time = runningTime, !off.load(ordering: .relaxed), motion.moving else { return false }
        let due = lastAdmitted.withLock { last in
            if let previous = last, time >= previous, time - previous < minimumSpacing { return false }
            last = time
            return true
        }
        guard due else { return false }
        if busy.load(ordering: .acquiring) {
            state.withLock { $0.skipped += 1 }
            return false
        }
        if let until = restingUntil.withLock({ $0 }), ContinuousClock.now < until {
            state.withLock { $0.held += 1 }
            return false
        }
        return true
    }

    /// A frame from the appsink (streaming thread): handed over, never waited for.
    package func receive(pixels: [UInt8], capturedAt: Date) {
        guard let frame = Picture(width: width, height: height, channels: channels, buffer: pixels) else { return }
        busy.store(true, ordering: .releasing)
        continuation.yield(Sample(frame: frame, capturedAt: capturedAt))
    }

    /// A run ended, having taken `milliseconds` and `cpuSeconds` of its thread: the next due frame is taken once the
    /// detector has rested long enough for the run to fit its budget (a run of c CPU seconds at a budget b rests
    /// c × (1/b − 1): a quarter of a core rests three times the run's CPU time).
    package func ran(milliseconds: Double, cpuSeconds: Double = 0, detections: [String], failed: Bool) {
        state.withLock { s in
            s.runs += 1
            s.cpuS += cpuSeconds
            if failed { s.failures += 1 }
            s.runMs.record(milliseconds)
            for label in detections { s.detections[label, default: 0] += 1 }
        }
        if budget > 0 {
            let rest = min(60, cpuSeconds * (1 / budget - 1))
            restingUntil.withLock { $0 = ContinuousClock.now + .milliseconds(Int64((rest * 1000).rounded())) }
        }
        busy.store(false, ordering: .releasing)
    }

    /// The runs a second the budget holds the detector to: `fps`, or fewer when its runs' mean CPU time would exceed
    /// the budget at `fps`.
    public var heldFps: Double {
        let s = current
        guard budget > 0, s.runs > 0, s.cpuS > 0 else { return Double(fps) }
        return min(Double(fps), budget / (s.cpuS / Double(s.runs)))
    }

    /// No detector could be made: the branch takes no frame (the appliance runs on motion alone).
    package func turnOff() {
        off.store(true, ordering: .relaxed)
        continuation.finish()
    }

    package func finish() { continuation.finish() }

    public var current: State { state.withLock { $0 } }

    /// What `status` says of object detection (nil once the detector could not be made).
    package var status: ObjectStatus? {
        guard !off.load(ordering: .relaxed) else { return nil }
        let s = current
        var status = ObjectStatus(
            detector: detectorName.withLock { $0 }, track: track.withLock { $0 }, fps: fps, width: width,
            height: height, runs: s.runs, skipped: s.skipped,
            failures: s.failures, detections: s.detections, present: s.present, events: s.events,
            meanRunMs: s.runMs.count == 0 ? 0 : (s.runMs.sum / Double(s.runMs.count) * 10).rounded() / 10)
        status.cpuBudget = budget
        status.held = s.held
        status.cpuS = (s.cpuS * 1000).rounded() / 1000
        status.heldFps = (heldFps * 100).rounded() / 100
        return status
    }

    /// The detector's name, for status (set when the service is made).
    package let detectorName = Mutex("")
    /// The tracked labels, for status (set when the service is made).
    package let track = Mutex<[String]>([])

    package func update(_ body: (inout State) -> Void) { state.withLock { body(&$0) } }
}
