import Synchronization

/// A value delivered once from any thread (e.g. a streaming thread's probe) to one async waiter.
/// `fire` never blocks; `wait` supports a time-out.
final class OneShot<Value: Sendable>: Sendable {
    private struct State {
        var value: Value?
        var waiter: CheckedContinuation<Value?, Never>?
    }
    private let state = Mutex(State())

    func fire(_ value: Value) {
        let waiter: CheckedContinuation<Value?, Never>? = state.withLock { s in
            guard s.value == nil else { return nil }
            s.value = value
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: value)
    }

    var isFired: Bool { state.withLock { $0.value != nil } }

    /// Waits for the value; nil on time-out.
    func wait(timeout: Duration) async -> Value? {
        await withTaskGroup(of: Value?.self) { group in
            group.addTask {
                await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
                    let ready: Value? = self.state.withLock { s in
                        if let value = s.value { return value }
                        s.waiter = continuation
                        return nil
                    }
                    if let ready { continuation.resume(returning: ready) }
                }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            if first == nil { self.cancelWaiter() }
            group.cancelAll()
            return first
        }
    }

    private func cancelWaiter() {
        let waiter = state.withLock { s -> CheckedContinuation<Value?, Never>? in
            defer { s.waiter = nil }
            return s.waiter
        }
        waiter?.resume(returning: nil)
    }
}
