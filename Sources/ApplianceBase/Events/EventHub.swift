import ApplianceProtocol
import Foundation

/// The one typed event stream: every domain publishes here, every front end (the socket's `events`, next the web
/// page and the recording light) subscribes. A slow subscriber loses its oldest events rather than slowing the
/// daemon (a bounded buffer each). Publishing never blocks: probes and streaming threads may publish.
public final class EventHub: Sendable {
    public struct Subscription: Sendable {
        public let id: UUID
        public let events: AsyncStream<EventRecord>
    }

    private let subscribers = Locked<[UUID: AsyncStream<EventRecord>.Continuation]>([:])
    public static let bufferPerSubscriber = 1000

    public init() {}

    public func subscribe() -> Subscription {
        let id = UUID()
        let (stream, continuation) = AsyncStream.makeStream(
            of: EventRecord.self, bufferingPolicy: .bufferingNewest(Self.bufferPerSubscriber))
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.unsubscribe(id) }
        return Subscription(id: id, events: stream)
    }

    public func unsubscribe(_ id: UUID) {
        let continuation = subscribers.withLock { $0.removeValue(forKey: id) }
        continuation?.finish()
    }

    public var subscriberCount: Int { subscribers.withLock { $0.count } }

    public func publish(_ event: ApplianceEvent) {
        let record = EventRecord(event)
        let targets = subscribers.withLock { Array($0.values) }
        for continuation in targets { continuation.yield(record) }
    }

    /// Ends every subscription (daemon shutdown).
    public func finishAll() {
        let all = subscribers.withLock { subscribers -> [AsyncStream<EventRecord>.Continuation] in
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for continuation in all { continuation.finish() }
    }
}
