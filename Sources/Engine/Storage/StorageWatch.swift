import ApplianceProtocol
import AsyncAlgorithms
import Logging
import ServiceLifecycle
import ApplianceBase

/// While the recordings' storage is missing (see `RowReconciler`), looks every few seconds for the files it held;
/// when they are back, the condition ends (`storage_available`) and the clips are whole again — their rows never
/// changed.
package struct StorageWatch: Service, CustomStringConvertible {
    package var description: String { "StorageWatch" }
    package let health: Health
    package let events: EventHub
    package let logger: Logger
    /// Some of the files that were absent at start-up.
    package let absentSample: [String]

    package init(health: Health, events: EventHub, logger: Logger, absentSample: [String]) {
        self.health = health
        self.events = events
        self.logger = logger
        self.absentSample = absentSample
    }
    package static let interval: Duration = .seconds(5)

    package func run() async throws {
        guard health.storage.state == .missing else {
            try? await gracefulShutdown()
            return
        }
        for await _ in AsyncTimerSequence(interval: Self.interval, clock: .continuous).cancelOnGracefulShutdown() {
            guard health.storage.state == .missing else { continue }
            guard absentSample.contains(where: { DataDirectory.fileSize($0) != nil }) else { continue }
            let status = StorageStatus(state: .ok, recordingsDir: health.storage.recordingsDir)
            health.storage = status
            events.publish(.storageAvailable(status))
            logger.notice("recordings storage is back: \(status.recordingsDir)")
        }
    }
}
