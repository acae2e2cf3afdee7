import ApplianceProtocol

/// What status reports beside the domains' own state: the last error anyone met, whether the recordings' storage
/// is there, and what start-up recovery did. Written from any domain or thread; a short lock each time.
final class Health: Sendable {
    private struct State {
        var lastError: String?
        var storage: StorageStatus
        var recovery: RecoveryReport?
    }

    private let state: Locked<State>

    init(storage: StorageStatus, recovery: RecoveryReport?) {
        state = Locked(State(storage: storage, recovery: recovery))
    }

    func noteError(_ message: String) { state.withLock { $0.lastError = message } }
    var lastError: String? { state.withLock { $0.lastError } }

    var storage: StorageStatus {
        get { state.withLock { $0.storage } }
        set { state.withLock { $0.storage = newValue } }
    }

    var recovery: RecoveryReport? { state.withLock { $0.recovery } }
}
