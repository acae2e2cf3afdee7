import Synchronization

/// A value delivered once, from any thread (a streaming thread's probe, say), to any number of async waiters.
/// `fire` never blocks. `wait(timeout:)` returns the value, or nil once the timeout has passed — always: the timeout
/// is a timer of its own, not a sleeping child task, so it cannot be missed by a waiter that registers late, and it
/// is not cut short when the waiting task is cancelled (a recording being finalised during shutdown must still wait
/// for its muxer).
package final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Value?, Never>] = [:]
        var callbacks: [@Sendable (Value) -> Void] = []
    }
    private let state = Mutex(State())

    package init() {}

    package func fire(_ value: Value) {
        let (waiters, callbacks) = state.withLock {
            s -> ([CheckedContinuation<Value?, Never>], [@Sendable (Value) -> Void]) in
            guard s.value == nil else { return ([], []) }
            s.value = value
            defer {
                s.waiters.removeAll()
                s.callbacks.removeAll()
            }
            return (Array(s.waiters.values), s.callbacks)
        }
        for waiter in waiters { waiter.resume(returning: value) }
        for callback in callbacks { callback(value) }
    }

    /// Calls `callback` with the value when it is fired (at once if it already was), on the firing thread:
    /// the callback must not block.
    package func whenFired(_ callback: @escaping @Sendable (Value) -> Void) {
        let fired = state.withLock { s -> Value? in
            if s.value == nil { s.callbacks.append(callback) }
            return s.value
        }
        if let fired { callback(fired) }
    }

    package var isFired: Bool { state.withLock { $0.value != nil } }
    package var value: Value? { state.withLock { $0.value } }

    /// Waits for the value; nil when `timeout` passes first.
    package func wait(timeout: Duration) async -> Value? {
        await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
            let registered = state.withLock { s -> Int? in
                if s.value != nil { return nil }
                let id = s.nextWaiter
                s.nextWaiter += 1
                s.waiters[id] = continuation
                return id
            }
            guard let id = registered else {
                continuation.resume(returning: value)
                return
            }
            after(timeout) { [self] in
                let expired = state.withLock { $0.waiters.removeValue(forKey: id) }
                expired?.resume(returning: nil)
            }
        }
    }
}
