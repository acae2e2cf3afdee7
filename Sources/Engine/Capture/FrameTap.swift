import GStreamerKit
import Synchronization

/// Keeps the latest raw frame from the tap branch, and catches the frame for a recording's thumbnail.
/// The appsink callback only swaps references under a short lock; encoding happens elsewhere.
package final class FrameTap: Sendable {
    package struct Request {
        package var id: String
        var atRunningTime: UInt64
        var captured: Sample?
    }

    private struct State {
        var latest: Sample?
        /// Loop recording overlaps two segments for a moment: each has its own request.
        var requests: [Request] = []
    }

    private let state = Mutex(State())

    /// A frame kept for a thumbnail is held until its recording ends: it is copied out of the camera's buffer pool
    /// (`Sample.detached`), which would otherwise stay alive with the camera's device node for as long (an unplugged
    /// camera then came back under another name). The latest frame is replaced every few frames, by the filler's when
    /// a camera goes.
    package func receive(_ sample: Sample) {
        let rt = sample.runningTime?.nanoseconds ?? .max
        let due = { (s: State) in rt != .max && s.requests.contains { $0.captured == nil && rt >= $0.atRunningTime } }
        let kept = state.withLock { due($0) } ? sample.detached() : nil
        state.withLock { s in
            s.latest = sample
            guard let kept else { return }
            for i in s.requests.indices where s.requests[i].captured == nil && rt >= s.requests[i].atRunningTime {
                s.requests[i].captured = kept
            }
        }
    }

    package var latest: Sample? { state.withLock { $0.latest } }

    /// True while a thumbnail frame is awaited: the tap then takes every frame.
    var wantsEveryFrame: Bool { state.withLock { $0.requests.contains { $0.captured == nil } } }

    /// Asks for the first frame at or after `runningTime`, for recording `id`.
    func requestFrame(id: String, atRunningTime: UInt64) {
        state.withLock { $0.requests.append(Request(id: id, atRunningTime: atRunningTime, captured: nil)) }
    }

    /// Ends the request: the caught frame, else the latest frame (a clip shorter than the offset).
    func finishRequest(id: String) -> Sample? {
        state.withLock { s in
            guard let index = s.requests.firstIndex(where: { $0.id == id }) else { return s.latest }
            return s.requests.remove(at: index).captured ?? s.latest
        }
    }
}
