import ApplianceBase
import ServiceLifecycle

/// Open while the appliance takes commands. As a service it is the last in the group, so graceful shutdown
/// reaches it first: from then on every front end's commands are refused (`unavailable`), while a command
/// already running — a `record stop`, say — completes.
final class CommandGate: Service, Sendable, CustomStringConvertible {
    var description: String { "CommandGate" }
    private let open = Locked(true)

    var isOpen: Bool { open.withLock { $0 } }

    func run() async throws {
        try? await gracefulShutdown()
        open.withLock { $0 = false }
    }
}
