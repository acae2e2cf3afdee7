import ApplianceProtocol
import Foundation
import Logging
import ApplianceBase

/// `snapshot`: the latest frame of the live picture as a full-resolution JPEG, no recording needed.
package struct Snapshotter: Sendable {
    package let data: DataDirectory
    package let graph: CaptureGraph
    package let logger: Logger

    package init(data: DataDirectory, graph: CaptureGraph, logger: Logger) {
        self.data = data
        self.graph = graph
        self.logger = logger
    }

    package func take() async throws -> SnapshotResult {
        guard let frame = graph.latestFrame else { throw ApplianceError(.unavailable, "no video frame yet") }
        let id = UUID().uuidString.lowercased()
        let path = data.snapshotPath(id: id)
        let size = try await blocking { try frame.writeJPEG(to: path, quality: 92) }
        logger.info("snapshot \(path)")
        return SnapshotResult(id: id, path: path, width: size.width, height: size.height)
    }
}
