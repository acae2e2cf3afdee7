import Synchronization

/// Wakes one waiting loop: "there may be new work". A signal sent while nobody waits is kept (once) for the next
/// wait. `wait(until:)` returns on a signal, at the deadline, or when the waiting task is cancelled — and, unlike
/// iterating an AsyncStream, a wait that ends by timeout or cancellation leaves the signal usable.
package final class WakeSignal: Sendable {
    private struct State {
        var pending = false
        var generation = 0
        var waiter: (generation: Int, continuation: CheckedContinuation<Void, Never>)?
    }
    private let state = Mutex(State())

    package init() {}

    package func signal() {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let waiter = s.waiter else {
                s.pending = true
                return nil
            }
            s.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }

    /// Waits for a signal, until `deadline` (nil: no deadline), or until the task is cancelled. One waiter at a time.
    package func wait(until deadline: ContinuousClock.Instant?) async {
        let generation = state.withLock { s -> Int in
            s.generation += 1
            return s.generation
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let wakeNow = state.withLock { s -> Bool in
                    if s.pending || Task.isCancelled {
                        s.pending = false
                        return true
                    }
                    s.waiter = (generation, continuation)
                    return false
                }
                if wakeNow {
                    continuation.resume()
                } else if let deadline {
                    after(deadline - .now) { [self] in release(generation) }
                }
            }
        } onCancel: {
            release(generation)
        }
    }

    /// Ends the wait of `generation`, if it is still the one waiting.
    private func release(_ generation: Int) {
        let waiter = state.withLock { s -> CheckedContinuation<Void, Never>? in
            guard let waiter = s.waiter, waiter.generation == generation else { return nil }
            s.waiter = nil
            return waiter.continuation
        }
        waiter?.resume()
    }
}
