import ApplianceBase
import ApplianceProtocol
import AsyncAlgorithms
import Foundation
import Logging
import ServiceLifecycle

/// The library's rows against the files, in the background once the daemon records (`Recovery.reconcile`: seconds
/// for a million rows, which start-up must not wait for), reported when done (`library reconciled`). Then, while the
/// recordings' storage is missing (see `RowReconciler`), looks every few seconds for the files it held; when they
/// are back, the condition ends (`storage_available`) and the clips are whole again — their rows never changed.
package struct StorageWatch: Service, CustomStringConvertible {
    package var description: String { "StorageWatch" }
    package let health: Health
    package let events: EventHub
    package let logger: Logger
    /// The reconcile; nil when there is none to run (the storage's state is already known).
    package let reconcile: (@Sendable () async throws -> Recovery.Outcome)?
    /// Told the clips the reconcile brought in (adopted files, files that came back): the backup queues them.
    package let clipsFound: (@Sendable ([String]) async -> Void)?
    /// Some of the files that were absent (with the storage missing).
    private let knownAbsent: [String]

    package init(
        health: Health, events: EventHub, logger: Logger, absentSample: [String] = [],
        clipsFound: (@Sendable ([String]) async -> Void)? = nil,
        reconcile: (@Sendable () async throws -> Recovery.Outcome)? = nil
    ) {
        (self.health, self.events, self.logger, self.reconcile, knownAbsent) = (
            health, events, logger, reconcile, absentSample
        )
        self.clipsFound = clipsFound
    }
    package static let interval: Duration = .seconds(5)

    package func run() async throws {
        let absentSample = await reconciled() ?? knownAbsent
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

    /// Runs the reconcile and makes its outcome known: health (status), the storage-missing condition, one log line.
    /// Returns the sample of absent files, nil when there was nothing to run. A failure is logged and leaves the rows
    /// as they were (the next start tries again); retention then goes on as before.
    private func reconciled() async -> [String]? {
        guard let reconcile else { return nil }
        defer { health.reconciled = true }
        let outcome: Recovery.Outcome
        do {
            outcome = try await reconcile()
        } catch {
            logger.error("the library's rows could not be checked against the files: \(error)")
            health.noteError("reconcile: \(error)")
            return []
        }
        let recoveredBefore = Set(health.recovery?.recovered ?? [])
        health.recovery = outcome.report
        let found = outcome.report.adopted + outcome.report.recovered.filter { !recoveredBefore.contains($0) }
        if !found.isEmpty { await clipsFound?(found) }
        if outcome.storage.state == .missing {
            health.storage = outcome.storage
            events.publish(.storageMissing(outcome.storage))
        }
        let r = outcome.report
        logger.info(
            "library reconciled",
            metadata: [
                "recovered": "\(r.recovered.count)", "failed": "\(r.failed.count)", "adopted": "\(r.adopted.count)",
                "empty": "\(r.empty.count)", "storage": "\(outcome.storage.state.rawValue)",
                "recovery_ms": "\(String(format: "%.1f", r.durationMs))",
            ])
        return outcome.absentSample
    }
}
