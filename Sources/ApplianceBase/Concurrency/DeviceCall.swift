import Foundation

/// A call into a device or a source that may never return: filesrc opening a FIFO with no writer blocks in open()
/// inside the state change (gdb: `__libc_open64` under `gst_element_change_state`), and so can a wedged USB camera
/// or a network source waiting for an answer. Made on a thread of its own (never the cooperative pool, nor the
/// shared blocking pool, whose four threads a few stuck cameras would take), and awaited with a deadline: when it
/// passes, or the waiting task is cancelled (shutdown), the caller goes on with `DeviceCall.Abandoned` while the
/// thread stays in the call. When such a call returns at last, `afterAbandoned` runs on its thread (to undo what it
/// did: stop a camera that started after all), and the call leaves `DeviceCall.stuck`.
package enum DeviceCall {
    package struct Abandoned: Error, CustomStringConvertible {
        package let what: String
        package let after: Duration
        package let cancelled: Bool
        package var description: String {
            cancelled
                ? "\(what) was abandoned (shutting down)"
                : "\(what) did not return within \(Self.format(after)) s (abandoned on its thread)"
        }

        package static func format(_ duration: Duration) -> String {
            let seconds = duration.seconds
            return seconds == seconds.rounded() ? "\(Int(seconds))" : String(format: "%.1f", seconds)
        }
    }

    /// Calls abandoned that have not returned yet, by id: what each is and when it began.
    private static let stuck = Locked<[Int: (what: String, since: ContinuousClock.Instant)]>([:])
    private static let nextID = Locked(0)

    /// The calls abandoned and still stuck, oldest first, each with how long it has been ("camera 'door' start
    /// (stuck for 12 s)"): status shows them, and a stop that leaves them behind says so.
    package static var stuckNow: [String] {
        let now = ContinuousClock.now
        return stuck.withLock { Array($0.values) }.sorted { $0.since < $1.since }.map { call in
            "\(call.what) (stuck for \((now - call.since).components.seconds) s)"
        }
    }

    /// Runs `work` on a new thread and waits for it at most `deadline`.
    package static func run<T: Sendable>(
        _ what: String, deadline: Duration,
        afterAbandoned: (@Sendable (Result<T, any Error>) -> Void)? = nil,
        _ work: @escaping @Sendable () throws -> T
    ) async throws -> T {
        if Task.isCancelled { throw Abandoned(what: what, after: .zero, cancelled: true) }
        let id = nextID.withLock { id in
            defer { id += 1 }
            return id
        }
        let began = ContinuousClock.now
        // The call's fate is decided once, under its lock, by whichever side gets there first.
        let state = Locked(CallState<T>.running)
        let wake = OneShot<Bool>()
        Thread.detachNewThread {
            let outcome = Result<T, any Error> { try work() }
            let wasAbandoned = state.withLock { s -> Bool in
                defer { s = .returned(outcome) }
                guard case .abandoned = s else { return false }
                stuck.withLock { _ = $0.removeValue(forKey: id) }
                return true
            }
            if wasAbandoned { afterAbandoned?(outcome) } else { wake.fire(true) }
        }
        _ = await withTaskCancellationHandler {
            await wake.wait(timeout: deadline)
        } onCancel: {
            wake.fire(false)
        }
        let returned = state.withLock { s -> Result<T, any Error>? in
            if case .returned(let outcome) = s { return outcome }
            s = .abandoned
            stuck.withLock { $0[id] = (what, began) }
            return nil
        }
        if let returned { return try returned.get() }
        throw Abandoned(what: what, after: deadline, cancelled: Task.isCancelled)
    }
}

private enum CallState<T: Sendable>: Sendable {
    case running, abandoned
    case returned(Result<T, any Error>)
}
