import Foundation
import Synchronization

/// Small JPEG frames for scrubbing, taken from the live graph every `interval` (a branch of the raw tee, like the
/// live view's, but always on: at one frame every few seconds, scaled to ~160 px, it costs next to nothing), and
/// the running-time ranges of the files being recorded, which the recorder declares as it starts, cuts and stops
/// them. The streaming thread only takes a short lock and yields; `ScrubWriter` writes each frame into the pack of
/// the file whose range holds it (`ScrubPack`), so previews are made while recording, never by decoding a file.
package final class ScrubFrames: Sendable {
    package struct Frame: Sendable {
        package let jpeg: [UInt8]
        /// The pipeline running time of the raw frame (nanoseconds).
        package let runningTime: UInt64
    }

    /// A file's span of running time: from its first frame, until it was cut or stopped (nil while it goes on).
    package struct Range: Sendable, Equatable {
        package let id: String
        package let path: String
        package let start: UInt64
        package var end: UInt64?

        package func holds(_ time: UInt64) -> Bool { time >= start && end.map { time < $0 } ?? true }
    }

    package let interval: UInt64
    package let width: Int
    package let frames: AsyncStream<Frame>
    private let continuation: AsyncStream<Frame>.Continuation
    private let state = Mutex(State())

    private struct State {
        var lastAdmitted: UInt64?
        var ranges: [Range] = []
    }

    /// `intervalS`: seconds between frames; `width`: their width in pixels.
    package init(intervalS: Double, width: Int) {
        interval = UInt64(max(0.1, intervalS) * 1e9)
        self.width = width
        (frames, continuation) = AsyncStream.makeStream(of: Frame.self, bufferingPolicy: .bufferingNewest(16))
    }

    /// The probe's question, on the streaming thread: scale and encode this raw frame? One per interval (1 % slack:
    /// frames come on the graph's time grid, so an interval that is a whole number of frames is kept exactly).
    package func admit(runningTime: UInt64?) -> Bool {
        guard let time = runningTime else { return false }
        return state.withLock { s in
            if let last = s.lastAdmitted, time >= last, time - last < interval * 99 / 100 { return false }
            s.lastAdmitted = time
            return true
        }
    }

    /// An encoded frame, on the streaming thread.
    package func receive(jpeg: [UInt8], runningTime: UInt64) {
        continuation.yield(Frame(jpeg: jpeg, runningTime: runningTime))
    }

    package func finish() { continuation.finish() }

    /// The recorder: a file begins at `runningTime` (its first frame); its previews go to `path`.
    package func begin(id: String, path: String, at runningTime: UInt64) {
        state.withLock { s in s.ranges.append(Range(id: id, path: path, start: runningTime)) }
    }

    /// The recorder: a file was cut or stopped at `runningTime`; later frames are not its.
    package func end(id: String, at runningTime: UInt64) {
        state.withLock { s in
            for i in s.ranges.indices where s.ranges[i].id == id && s.ranges[i].end == nil {
                s.ranges[i].end = runningTime
            }
        }
    }

    /// The ranges that may still get frames; those that ended more than `keep` before `now` are forgotten.
    package func ranges(forgettingBefore now: UInt64, keep: UInt64) -> [Range] {
        state.withLock { s in
            s.ranges.removeAll { range in range.end.map { $0 + keep < now } ?? false }
            return s.ranges
        }
    }
}
