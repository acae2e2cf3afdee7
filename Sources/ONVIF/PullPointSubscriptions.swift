import ApplianceBase
import Foundation

/// ONVIF's PullPoint subscriptions: each queues the notifications published since the client last pulled (the
/// newest `maxQueued`), a pull waits up to its timeout for one, and each ends at its termination time unless
/// renewed. Capped in number; expired ones are swept by the event feed's clock and refused when asked for.
package final class PullPointSubscriptions: Sendable {

    package init() {
    }
    package static let maxSubscriptions = 10
    package static let maxQueued = 100
    /// A pull waits at most this long (clients' own read timeouts are 90 s).
    static let longestPull: TimeInterval = 60
    static let defaultTerm: TimeInterval = 600
    static let termRange: ClosedRange<TimeInterval> = 10...86_400

    private struct Subscription {
        var termination: Date
        var queue: [ONVIFNotification] = []
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    private struct State {
        var subscriptions: [String: Subscription] = [:]
        var current: [ONVIFNotification.Key: ONVIFNotification] = [:]
        var closed = false
    }

    private let state = Locked(State())

    package var count: Int { state.withLock { $0.subscriptions.count } }

    /// Sets what `Initialized` messages report before any event (the states at start).
    package func setInitial(_ notifications: [ONVIFNotification]) {
        state.withLock { s in for n in notifications where s.current[n.key] == nil { s.current[n.key] = n } }
    }

    /// A new subscription ending at `requested` (a time, or nil for the default term); its queue starts with the
    /// current states (`Initialized`), so a client's sensors exist before anything happens.
    package func create(requested: Date?, now: Date = Date()) throws(SOAPFault) -> (id: String, termination: Date) {
        let termination = Self.clamp(requested, now: now)
        let id = RandomToken.make(bytes: 16)
        let created = state.withLock { s -> Bool in
            Self.sweep(&s, now: now)
            guard !s.closed, s.subscriptions.count < Self.maxSubscriptions else { return false }
            s.subscriptions[id] = Subscription(termination: termination, queue: Self.initialized(s.current, now: now))
            return true
        }
        guard created else {
            throw SOAPFault(
                .receiver, "ter:Action",
                "too many subscriptions (at most \(Self.maxSubscriptions)); unsubscribe or let one expire")
        }
        return (id, termination)
    }

    /// Up to `limit` queued notifications, waiting up to `timeout` (at most a minute) for the first one.
    package func pull(_ id: String, timeout: TimeInterval, limit: Int, now: Date = Date()) async throws(SOAPFault) -> (
        messages: [ONVIFNotification], termination: Date
    ) {
        _ = try termination(of: id, now: now)
        let wait = min(max(timeout, 0), Self.longestPull)
        if wait > 0 {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.waitForMessage(id) }
                group.addTask { try? await Task.sleep(for: .milliseconds(Int(wait * 1000))) }
                await group.next()
                group.cancelAll()
            }
        }
        return try state.withLock { s throws(SOAPFault) in
            guard var subscription = s.subscriptions[id] else { throw .unknownSubscription() }
            let taken = Array(subscription.queue.prefix(max(1, limit)))
            subscription.queue.removeFirst(taken.count)
            s.subscriptions[id] = subscription
            return (taken, subscription.termination)
        }
    }

    /// Queues the current states again (`Initialized`).
    package func synchronize(_ id: String, now: Date = Date()) throws(SOAPFault) {
        try update(id, now: now) { s, subscription in
            let changes = subscription.queue.filter { $0.operation == .changed }
            subscription.queue = Array((changes + Self.initialized(s.current, now: now)).suffix(Self.maxQueued))
            Self.wake(&subscription)
        }
    }

    package func renew(_ id: String, requested: Date?, now: Date = Date()) throws(SOAPFault) -> Date {
        let termination = Self.clamp(requested, now: now)
        try update(id, now: now) { _, subscription in subscription.termination = termination }
        return termination
    }

    package func unsubscribe(_ id: String, now: Date = Date()) throws(SOAPFault) {
        _ = try termination(of: id, now: now)
        state.withLock { s in
            if var gone = s.subscriptions.removeValue(forKey: id) { Self.wake(&gone) }
        }
    }

    /// Records the new state and queues it on every subscription, waking their pulls.
    package func publish(_ notification: ONVIFNotification) {
        state.withLock { s in
            s.current[notification.key] = notification
            for id in Array(s.subscriptions.keys) {
                s.subscriptions[id]!.queue.append(notification)
                if s.subscriptions[id]!.queue.count > Self.maxQueued { s.subscriptions[id]!.queue.removeFirst() }
                Self.wake(&s.subscriptions[id]!)
            }
        }
    }

    /// Ends subscriptions past their termination time; returns how many.
    @discardableResult
    package func expire(now: Date = Date()) -> Int { state.withLock { Self.sweep(&$0, now: now) } }

    /// Shutdown: every pull returns now and no subscription is made again.
    package func finishAll() {
        state.withLock { s in
            s.closed = true
            for id in Array(s.subscriptions.keys) { Self.wake(&s.subscriptions[id]!) }
            s.subscriptions.removeAll()
        }
    }

    private func termination(of id: String, now: Date) throws(SOAPFault) -> Date {
        try state.withLock { s throws(SOAPFault) in
            Self.sweep(&s, now: now)
            guard let subscription = s.subscriptions[id] else { throw .unknownSubscription() }
            return subscription.termination
        }
    }

    private func update(_ id: String, now: Date, _ change: (State, inout Subscription) -> Void) throws(SOAPFault) {
        try state.withLock { s throws(SOAPFault) in
            Self.sweep(&s, now: now)
            guard var subscription = s.subscriptions[id] else { throw .unknownSubscription() }
            change(s, &subscription)
            s.subscriptions[id] = subscription
        }
    }

    /// Returns when a message is queued, the subscription ends, or the task is cancelled (the pull's timeout).
    private func waitForMessage(_ id: String) async {
        let waiter = UUID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { s -> Bool in
                    guard !Task.isCancelled, var subscription = s.subscriptions[id], subscription.queue.isEmpty else {
                        return true
                    }
                    subscription.waiters[waiter] = continuation
                    s.subscriptions[id] = subscription
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let continuation = state.withLock { s in s.subscriptions[id]?.waiters.removeValue(forKey: waiter) }
            continuation?.resume()
        }
    }

    private static func wake(_ subscription: inout Subscription) {
        for continuation in subscription.waiters.values { continuation.resume() }
        subscription.waiters.removeAll()
    }

    @discardableResult
    private static func sweep(_ s: inout State, now: Date) -> Int {
        let ended = s.subscriptions.filter { $0.value.termination <= now }.map(\.key)
        for id in ended { if var gone = s.subscriptions.removeValue(forKey: id) { wake(&gone) } }
        return ended.count
    }

    private static func clamp(_ requested: Date?, now: Date) -> Date {
        let seconds = requested.map { $0.timeIntervalSince(now) } ?? defaultTerm
        return now.addingTimeInterval(min(max(seconds, termRange.lowerBound), termRange.upperBound))
    }

    /// Every current state, by property in `Property`'s order, then by channel (the first's first).
    private static func initialized(_ current: [ONVIFNotification.Key: ONVIFNotification], now: Date)
        -> [ONVIFNotification]
    {
        let order = ONVIFNotification.Property.allCases
        return current.values.sorted {
            let (a, b) = (order.firstIndex(of: $0.property) ?? 0, order.firstIndex(of: $1.property) ?? 0)
            return a != b ? a < b : $0.channel < $1.channel
        }.map {
            ONVIFNotification(
                property: $0.property, value: $0.value, time: now, operation: .initialized, channel: $0.channel)
        }
    }
}
