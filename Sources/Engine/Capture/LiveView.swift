import ApplianceBase
import Foundation
import GStreamerKit
import Synchronization

/// The live view's JPEG frames, for the web dashboard's MJPEG stream: a branch off the raw tee, scaled to the
/// `[web]` live size and rate, that encodes only while someone watches. With no viewer its probe drops every frame
/// before the scaler, so the branch costs nothing. Streaming-thread calls only read an atomic or take a short lock.
public final class LiveView: LiveFrames {
    public typealias Frame = LiveFrame

    public let fps: Int
    public let width: Int
    public let height: Int
    private let minimumSpacing: UInt64
    private let viewers = Atomic<Int>(0)
    private let state = Mutex(State())

    private struct State {
        var continuations: [UInt64: AsyncStream<Frame>.Continuation] = [:]
        var nextID: UInt64 = 0
        var sequence: UInt64 = 0
        var lastAdmitted: UInt64?
        var latest: Frame?
    }

    package init(fps: Int, width: Int, height: Int) {
        (self.fps, self.width, self.height) = (fps, width, height)
        // 10 % slack so a source running at exactly `fps` is never halved by jitter.
        minimumSpacing = UInt64(1_000_000_000 / Double(fps) * 0.9)
    }

    /// Number of open streams.
    public var viewerCount: Int { viewers.load(ordering: .relaxed) }

    /// A stream of frames until `stop(id)` (or the stream is dropped). Buffers only the newest frame: a slow
    /// viewer skips frames instead of falling behind.
    public func watch() -> (id: UInt64, frames: AsyncStream<Frame>) {
        let (stream, continuation) = AsyncStream<Frame>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { s in
            defer { s.nextID += 1 }
            s.continuations[s.nextID] = continuation
            if let latest = s.latest, Date().timeIntervalSince(latest.capturedAt) < 1 { continuation.yield(latest) }
            return s.nextID
        }
        viewers.add(1, ordering: .relaxed)
        continuation.onTermination = { [weak self] _ in self?.stop(id) }
        return (id, stream)
    }

    public func stop(_ id: UInt64) {
        let removed = state.withLock { s in s.continuations.removeValue(forKey: id) }
        if let removed {
            viewers.subtract(1, ordering: .relaxed)
            removed.finish()
        }
    }

    /// Ends every stream (shutdown).
    package func finishAll() {
        let all = state.withLock { s in
            defer { s.continuations.removeAll() }
            return Array(s.continuations.values)
        }
        viewers.store(0, ordering: .relaxed)
        for continuation in all { continuation.finish() }
    }

    /// The probe's question, on the streaming thread: encode this raw frame? Only with a viewer, and at most `fps`.
    package func admit(runningTime: UInt64?) -> Bool {
        guard viewers.load(ordering: .relaxed) > 0 else { return false }
        guard let time = runningTime else { return false }
        return state.withLock { s in
            if let last = s.lastAdmitted, time >= last, time - last < minimumSpacing { return false }
            s.lastAdmitted = time
            return true
        }
    }

    /// An encoded frame from the appsink (streaming thread): `age` is how long ago, in pipeline time, it was captured.
    package func receive(jpeg: [UInt8], ageNanoseconds: UInt64) {
        let capturedAt = Date().addingTimeInterval(-Double(ageNanoseconds) / 1e9)
        let targets = state.withLock { s -> [AsyncStream<Frame>.Continuation] in
            s.sequence += 1
            let frame = Frame(jpeg: jpeg, capturedAt: capturedAt, sequence: s.sequence)
            s.latest = frame
            return Array(s.continuations.values)
        }
        guard let frame = state.withLock({ $0.latest }) else { return }
        for continuation in targets { continuation.yield(frame) }
    }
}
