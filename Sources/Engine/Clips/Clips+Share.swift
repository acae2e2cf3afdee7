import ApplianceBase
import ApplianceProtocol
import Foundation
import MediaLibrary

/// Share links as commands: `share`, `shares`, `unshare`.
extension Clips {
    /// Random bytes in a token: 256 bits (the issue asks for at least 128).
    static let shareTokenBytes = 32

    package func share(id: String, hours: Double?) async throws -> ShareLink {
        let recording = try await resolve(id)
        guard recording.state != .recording else {
            throw ApplianceError(.conflict, "recording \(recording.id) is in progress; share it once it has stopped")
        }
        guard recording.state != .failed else {
            throw ApplianceError(
                .conflict,
                "recording \(recording.id) failed (\(recording.failureReason ?? "no file")); nothing to share")
        }
        let now = Date()
        let expires = now.addingTimeInterval((hours ?? config.web.shareHours) * 3600)
        let token = RandomToken.make(bytes: Self.shareTokenBytes)
        try await library.insertShare(token: token, recordingId: recording.id, createdAt: now, expiresAt: expires)
        // never the token
        logger.info("shared recording \(recording.id)", metadata: ["expires_at": "\(Timestamps.iso(expires))"])
        return ShareLink(
            id: Library.shareID(token: token), token: token, recordingId: recording.id, title: recording.title,
            createdAt: now, expiresAt: expires)
    }

    package func shares() async throws -> ShareList {
        ShareList(items: try await library.shares())
    }

    /// `link`: the link's token, or its id as lists show it.
    package func unshare(link: String) async throws -> UnshareResult {
        guard let id = try await library.deleteShare(link) else {
            throw ApplianceError(.notFound, "no share link with that token or id")
        }
        logger.info("revoked share link \(id)")
        return UnshareResult(id: id, revoked: true)
    }
}
