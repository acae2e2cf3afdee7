import ApplianceProtocol
import Foundation
import MotionAndSound
import Synchronization

/// The motion branch's hand-over: small gray frames from the appsink's streaming thread to `MotionService`, at most
/// `[motion] fps`, the newest kept when the service is behind (it never blocks the streaming thread), and what the
/// service found, for status and metrics.
public final class MotionTap: Sendable {
    /// A frame to look at and when it was captured (its running time mapped to the wall clock).
    public struct Sample: Sendable {
        public let frame: GrayFrame
        public let capturedAt: Date
    }

    /// What detection shows now.
    public struct State: Sendable, Equatable {
        public var active = false
        public var score = 0.0
        public var framesAnalysed: UInt64 = 0
        public var events: UInt64 = 0
        /// Where the last frame looked at had motion (its regions' bounds): where objects are looked for.
        public var boxes: [MotionBox] = []
    }

    public let fps: Int
    public let width: Int
    public let height: Int
    public let samples: AsyncStream<Sample>
    private let continuation: AsyncStream<Sample>.Continuation
    private let minimumSpacing: UInt64
    private let lastAdmitted = Mutex<UInt64?>(nil)
    private let state = Mutex(State())

    package init(fps: Int, width: Int, height: Int) {
        (self.fps, self.width, self.height) = (fps, width, height)
        // 10 % slack so a source at exactly a multiple of `fps` is not thinned further by jitter.
        minimumSpacing = UInt64(1_000_000_000 / Double(fps) * 0.9)
        (samples, continuation) = AsyncStream.makeStream(of: Sample.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// The branch probe's question, on the streaming thread: scale and look at this frame? At most `fps` a second.
    package func admit(runningTime: UInt64?) -> Bool {
        guard let time = runningTime else { return false }
        return lastAdmitted.withLock { last in
            if let previous = last, time >= previous, time - previous < minimumSpacing { return false }
            last = time
            return true
        }
    }

    /// A scaled gray frame from the appsink (streaming thread): handed over, never waited for.
    package func receive(pixels: [UInt8], capturedAt: Date) {
        guard let frame = GrayFrame(width: width, height: height, pixels: pixels) else { return }
        continuation.yield(Sample(frame: frame, capturedAt: capturedAt))
    }

    /// Ends the stream of samples (shutdown).
    package func finish() { continuation.finish() }

    public var current: State { state.withLock { $0 } }

    /// Whether the last frame looked at had motion (asked on the objects branch's streaming thread: a lock held for
    /// a copy, never waited on long).
    package var moving: Bool { state.withLock { !$0.boxes.isEmpty } }

    /// What `status` says of motion detection.
    package var status: MotionStatus {
        let s = current
        return MotionStatus(
            active: s.active, score: (s.score * 10_000).rounded() / 10_000, fps: fps, width: width, height: height,
            framesAnalysed: s.framesAnalysed, events: s.events)
    }

    package func update(_ body: (inout State) -> Void) { state.withLock { body(&$0) } }
}
