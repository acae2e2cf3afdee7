import ApplianceProtocol
import Foundation
import Logging

/// `snapshot`: the latest frame of the live picture as a full-resolution JPEG, no recording needed.
struct Snapshotter: Sendable {
    let shared: Shared

    func take() async throws -> SnapshotResult {
        guard let frame = shared.graph.latestFrame else { throw ApplianceError(.unavailable, "no video frame yet") }
        let id = UUID().uuidString.lowercased()
        let path = shared.data.snapshotPath(id: id)
        let size = try await blocking { try frame.writeJPEG(to: path, quality: 92) }
        shared.logger.info("snapshot \(path)")
        return SnapshotResult(id: id, path: path, width: size.width, height: size.height)
    }
}
