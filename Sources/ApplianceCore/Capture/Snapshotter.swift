import ApplianceProtocol
import Foundation
import Logging

/// `snapshot`: the latest frame of the live picture as a full-resolution JPEG, no recording needed.
struct Snapshotter: Sendable {
    let data: DataDirectory
    let graph: CaptureGraph
    let logger: Logger

    func take() async throws -> SnapshotResult {
        guard let frame = graph.latestFrame else { throw ApplianceError(.unavailable, "no video frame yet") }
        let id = UUID().uuidString.lowercased()
        let path = data.snapshotPath(id: id)
        let size = try await blocking { try frame.writeJPEG(to: path, quality: 92) }
        logger.info("snapshot \(path)")
        return SnapshotResult(id: id, path: path, width: size.width, height: size.height)
    }
}
