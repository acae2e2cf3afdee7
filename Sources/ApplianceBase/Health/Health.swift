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

    package init(storage: StorageStatus, recovery: RecoveryReport?) {
        state = Locked(State(storage: storage, recovery: recovery))
    }

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

    package var recovery: RecoveryReport? { state.withLock { $0.recovery } }
}
