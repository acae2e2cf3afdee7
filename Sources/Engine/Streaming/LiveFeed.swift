import ApplianceBase
import GStreamerKit

/// The recording's own encoded streams, handed to every live viewer's transport (the RTSP server's media, each
/// WebRTC session) while it watches: probes on the video and audio tees' sink pads copy each H.264 access unit and
/// AAC frame to the subscribers (no second encoder).
///
/// The probes run on streaming threads: one short lock, and hand-overs that never wait (each transport's `appsrc`
/// is leaky), so a slow or vanished viewer never holds up the recording.
package final class LiveFeed: Sendable {
    /// A transport that takes the streams: `setCaps` before its first buffer of a stream, then `push` for each one.
    package struct Subscriber: Sendable {
        package var setCaps: @Sendable (Caps, String) -> Void
        package var push: @Sendable (BufferView, UInt64, String) -> Void
    }

    private struct State {
        var subscribers: [Int: Subscriber] = [:]
        var nextKey = 0
        /// Each stream's caps, read at its first buffer: only then do they carry the AAC codec data a parser or
        /// decoder needs (set earlier, RTSP's media never prerolled).
        var caps: [String: Caps] = [:]
    }

    private let state = Locked(State())
    package let graph: CaptureGraph

    package init(graph: CaptureGraph) {
        self.graph = graph
        for (tee, name) in [(graph.videoTee, "video"), (graph.audioTee, "audio")] {
            guard let pad = tee?.staticPad("sink") else { continue }
            pad.addProbe(.buffer) { [state] info in
                guard let buffer = info.buffer else { return .ok }
                let time = info.runningTime(buffer.pts)
                state.withLock { s in
                    if s.caps[name] == nil, let caps = pad.currentCaps {
                        s.caps[name] = caps
                        for subscriber in s.subscribers.values { subscriber.setCaps(caps, name) }
                    }
                    for subscriber in s.subscribers.values { subscriber.push(buffer, time, name) }
                }
                return .ok
            }
        }
    }

    /// Whether the graph has sound to stream.
    package var hasAudio: Bool { graph.audioTee != nil }

    /// Adds a transport; it gets the caps known so far at once. Returns the key that removes it.
    package func subscribe(_ subscriber: Subscriber) -> Int {
        state.withLock { s in
            for (name, caps) in s.caps { subscriber.setCaps(caps, name) }
            defer { s.nextKey += 1 }
            s.subscribers[s.nextKey] = subscriber
            return s.nextKey
        }
    }

    /// After this returns no probe calls the subscriber again.
    package func unsubscribe(_ key: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: key) }
    }
}
