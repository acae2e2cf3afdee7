import ApplianceBase
import Foundation
import Logging
import ServiceLifecycle

/// A stop finishes within `limit` (10 s) whatever a camera, an encoder or a sink does. Each service of the group runs
/// wrapped (`track`), so what is still running is known by name; when graceful shutdown begins (SIGTERM, SIGINT,
/// `shutdown()`), `Arm` — the group's last service, so it hears of it first — starts the clock. If the daemon has not
/// finished stopping when it runs out, the log says what was abandoned (the services still running, the device calls
/// still stuck) and the process exits with status 1. Recordings are finalised early in the stop (the recorder stops
/// before the cameras and the graph), and a clip left in partial/ is recovered at the next start.
package final class ShutdownDeadline: Sendable {
    package let limit: Duration
    private let logger: Logger
    /// Services (and the graph's stop) still running, in the order they started.
    private let running = Locked<[String]>([])
    private let state = Locked<(armed: Bool, finished: Bool)>((false, false))

    /// What ends the process when the limit passes (tests watch it instead).
    private let exit: @Sendable (Int32) -> Void

    package init(
        limit: Duration = ShutdownDeadline.defaultLimit, logger: Logger,
        exit: @escaping @Sendable (Int32) -> Void = { status in
            fflush(nil)  // every stream: the log line must reach the journal
            _exit(status)
        }
    ) {
        (self.limit, self.logger, self.exit) = (limit, logger, exit)
    }

    package static let defaultLimit: Duration = .seconds(10)

    /// Runs `body` as a named part of the stop: it counts as running until it returns.
    package func during<T>(_ name: String, _ body: () async throws -> T) async rethrows -> T {
        running.withLock { $0.append(name) }
        defer { running.withLock { list in list.firstIndex(of: name).map { _ = list.remove(at: $0) } } }
        return try await body()
    }

    /// The services, each wrapped so that the deadline knows whether it is still running; `Arm` last.
    package func track(_ services: [any Service]) -> [any Service] {
        services.map { Tracked(service: $0, deadline: self) as any Service } + [Arm(deadline: self)]
    }

    /// The daemon has stopped: the clock no longer matters.
    package func finished() { state.withLock { $0.finished = true } }

    /// Starts the clock (once).
    package func arm() {
        let first = state.withLock { s -> Bool in
            defer { s.armed = true }
            return !s.armed
        }
        guard first else { return }
        after(limit) { [self] in expire() }
    }

    private func expire() {
        guard !state.withLock({ $0.finished }) else { return }
        logger.critical("\(abandonment)")
        exit(1)
    }

    /// The line a stop that ran out of time leaves: what it abandoned.
    package var abandonment: String {
        let still = running.withLock { $0 }
        let stuck = DeviceCall.stuckNow
        var abandoned = still.isEmpty ? "" : "still running: \(still.joined(separator: ", "))"
        if !stuck.isEmpty {
            abandoned +=
                (abandoned.isEmpty ? "" : "; ") + "device calls that never returned: \(stuck.joined(separator: ", "))"
        }
        return
            """
            the stop took longer than \(DeviceCall.Abandoned.format(limit)) s; exiting without waiting further \
            (\(abandoned.isEmpty ? "nothing named" : abandoned))
            """
    }

    /// A service of the group, as the deadline sees it.
    private struct Tracked: Service, CustomStringConvertible {
        let service: any Service
        let deadline: ShutdownDeadline
        var description: String { "\(service)" }

        func run() async throws {
            try await deadline.during(description) { try await service.run() }
        }
    }

    /// The group's last service: hears of graceful shutdown first, and starts the clock.
    struct Arm: Service, CustomStringConvertible {
        package let deadline: ShutdownDeadline
        package var description: String { "ShutdownDeadline" }

        package func run() async throws {
            try? await gracefulShutdown()
            deadline.arm()
        }
    }
}
