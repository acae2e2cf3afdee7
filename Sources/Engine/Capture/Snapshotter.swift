import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging

/// `snapshot`: the latest frame as a JPEG under `snapshots/`. A viewer may take one, so what it may write is bounded
/// (issue 58: snapshots without limit filled the disk, and retention then deleted clips): at most `perMinute` a
/// minute (`busy` past that), and only the newest `kept` files stay (older ones go as each new one is written).
package struct Snapshotter: Sendable {
    package static let perMinute = 20
    package static let kept = 100
    package let data: DataDirectory
    package let graph: CaptureGraph
    package let logger: Logger
    private let budget = SnapshotBudget(perMinute: Snapshotter.perMinute)

    package init(data: DataDirectory, graph: CaptureGraph, logger: Logger) {
        self.data = data
        self.graph = graph
        self.logger = logger
    }

    /// `from`: another channel's graph (nil: this one's); the limits hold for every channel together.
    package func take(from other: CaptureGraph? = nil) async throws -> SnapshotResult {
        guard let frame = (other ?? graph).latestFrame else { throw ApplianceError(.unavailable, "no video frame yet") }
        try budget.admit(now: .now)
        let id = UUID().uuidString.lowercased()
        let path = data.snapshotPath(id: id)
        let size = try await blocking { try frame.writeJPEG(to: path, quality: 92) }
        logger.info("snapshot \(path)")
        let folder = data.snapshotsDir
        let removed = (try? await blocking { Self.prune(folder: folder, keeping: Self.kept) }) ?? 0
        if removed > 0 { logger.info("snapshots: removed the \(removed) oldest (the newest \(Self.kept) are kept)") }
        return SnapshotResult(id: id, path: path, width: size.width, height: size.height)
    }

    /// Deletes all but the newest `keeping` `.jpg` files of `folder` (by modification time); how many went.
    package static func prune(folder: String, keeping: Int) -> Int {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: folder) else { return 0 }
        let files = names.filter { $0.hasSuffix(".jpg") }.map { folder + "/" + $0 }
        guard files.count > keeping else { return 0 }
        let dated = files.map {
            ($0, (try? manager.attributesOfItem(atPath: $0)[.modificationDate] as? Date) ?? .distantPast)
        }
        var removed = 0
        for (path, _) in dated.sorted(by: { $0.1 > $1.1 }).dropFirst(keeping)
        where (try? manager.removeItem(atPath: path)) != nil {
            removed += 1
        }
        return removed
    }
}

/// Snapshots taken in the last minute, against a limit (time passed in: tests need no clock).
package final class SnapshotBudget: Sendable {
    let perMinute: Int
    private let recent = Locked<[ContinuousClock.Instant]>([])

    package init(perMinute: Int) { self.perMinute = perMinute }

    /// Counts one at `now`; `busy` when `perMinute` were taken in the minute before it.
    package func admit(now: ContinuousClock.Instant) throws(ApplianceError) {
        let allowed = recent.withLock { times -> Bool in
            times.removeAll { now - $0 >= .seconds(60) }
            guard times.count < perMinute else { return false }
            times.append(now)
            return true
        }
        guard allowed else {
            throw ApplianceError(.rateLimited, "at most \(perMinute) snapshots a minute; try again shortly")
        }
    }
}
