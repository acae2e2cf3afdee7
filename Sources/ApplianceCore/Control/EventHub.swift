import Foundation

/// Publishes appliance events to every subscriber (the `events` socket command, later the web page).
/// Each event is encoded once as a JSON line: `{"event": "recording_stopped", "time": "…", "data": {…}}`.
/// A slow subscriber loses its oldest events rather than slowing the daemon (bounded buffer per subscriber).
public final class EventHub: Sendable {
    private let subscribers = Locked<[UUID: AsyncStream<Data>.Continuation]>([:])
    public static let bufferPerSubscriber = 1000

    public init() {}

    public func subscribe() -> (id: UUID, lines: AsyncStream<Data>) {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(of: Data.self, bufferingPolicy: .bufferingNewest(Self.bufferPerSubscriber))
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return (id, stream)
    }

    public func unsubscribe(_ id: UUID) {
        let continuation = subscribers.withLock { $0.removeValue(forKey: id) }
        continuation?.finish()
    }

    public var subscriberCount: Int { subscribers.withLock { $0.count } }

    /// Publishes `name` with `data` encoded like command results (snake_case keys, ISO dates).
    public func publish(_ name: String, _ data: some Encodable) {
        let line = Response.eventLine(name: name, data: data)
        let targets = subscribers.withLock { Array($0.values) }
        for continuation in targets { continuation.yield(line) }
    }

    /// Ends every subscription (daemon shutdown).
    public func finishAll() {
        let all = subscribers.withLock { subscribers -> [AsyncStream<Data>.Continuation] in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for continuation in all { continuation.finish() }
    }
}
