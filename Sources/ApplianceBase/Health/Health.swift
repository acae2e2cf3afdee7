import ApplianceProtocol

/// What status reports beside the domains' own state: the last error anyone met, whether the recordings' storage
/// is there, and what start-up recovery did. Written from any domain or thread; a short lock each time.
package final class Health: Sendable {
    private struct State {
        var lastError: String?
        var storage: StorageStatus
        var recovery: RecoveryReport?
        /// Why recording cannot go on for lack of space (retention could free none); nil while there is room.
        var storageFull: String?
        var capacity: Capacity?
    }

    private let state: Locked<State>

    /// `reconciled`: false at a daemon's start, until the background reconcile is done.
    package init(storage: StorageStatus, recovery: RecoveryReport?, reconciled: Bool = true) {
        state = Locked(State(storage: storage, recovery: recovery))
        if reconciled { reconciledSignal.fire(true) }
    }

    /// Fired once the reconcile is done (or at once, when there is none to wait for).
    private let reconciledSignal = OneShot<Bool>()

    package func noteError(_ message: String) { state.withLock { $0.lastError = message } }
    package var lastError: String? { state.withLock { $0.lastError } }

    package var storageFull: String? {
        get { state.withLock { $0.storageFull } }
        set { state.withLock { $0.storageFull = newValue } }
    }

    /// The latest capacity measurement (retention takes one on every pass).
    package var capacity: Capacity? {
        get { state.withLock { $0.capacity } }
        set { state.withLock { $0.capacity = newValue } }
    }

    package var storage: StorageStatus {
        get { state.withLock { $0.storage } }
        set { state.withLock { $0.storage = newValue } }
    }

    /// What start-up recovery did; the background reconcile adds its part when done.
    package var recovery: RecoveryReport? {
        get { state.withLock { $0.recovery } }
        set { state.withLock { $0.recovery = newValue } }
    }

    /// Whether the library's rows have been checked against the files since start (`StorageWatch`): retention
    /// waits for it, so that it never judges by rows whose files are not known to be there.
    /// Once true it stays true: the reconcile runs once a start.
    package var reconciled: Bool {
        get { reconciledSignal.isFired }
        set { if newValue { reconciledSignal.fire(true) } }
    }

    /// Returns once the rows have been checked against the files (at once when they have been).
    /// Bounded: a reconcile that never ends (a service group stopped before it ran) must not hold a shutdown.
    package func untilReconciled() async { _ = await reconciledSignal.wait(timeout: .seconds(600)) }
}
