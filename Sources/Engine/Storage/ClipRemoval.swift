import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import MediaLibrary

/// The one way a clip leaves the device, for a user's `delete` and for retention alike: its file, its thumbnail, its
/// scrubbing previews and its row go together, and the rules that differ by cause are written here once.
/// - The clip being recorded is never removed.
/// - A locked clip goes only when a command is forced, or when retention removes it for the locked share
///   (`on_full = "overwrite_oldest_locked"`); a clip locked after retention chose it stays.
/// - A file already gone is not an error (the row still goes); any other failure removes nothing further.
/// - A user's delete also removes the remote copy (queued, durable); retention keeps it: it is the backup.
/// - A command publishes `deleted`; retention publishes `retention_deleted` and logs a notice with its reason.
package struct ClipRemoval: Sendable {
    package enum Cause: Sendable {
        /// `delete ID [--force]`.
        case command(force: Bool)
        /// The retention policy chose the clip for this reason.
        case retention(RetentionDeletion.Reason)
    }

    package let library: Library
    /// Where a clip's scrubbing previews are (`DataDirectory.scrubPath`).
    package let scrubPath: @Sendable (String) -> String
    /// The id of the clip being recorded now, if any (the recorder's).
    package let activeID: @Sendable () async -> String?
    /// Queues the remote deletion for a command; nil where backup is off.
    package let archive: (any RecordingArchive)?
    package let events: EventHub
    package let logger: Logger

    package init(
        library: Library, scrubPath: @escaping @Sendable (String) -> String,
        activeID: @escaping @Sendable () async -> String?, archive: (any RecordingArchive)?, events: EventHub,
        logger: Logger
    ) {
        self.library = library
        self.scrubPath = scrubPath
        self.activeID = activeID
        self.archive = archive
        self.events = events
        self.logger = logger
    }

    /// Removes `recording` (a row just read) for `cause`; returns the files that were there and went.
    /// Throws `conflict` for a clip it may not remove.
    @discardableResult
    package func remove(_ recording: Recording, cause: Cause) async throws -> [String] {
        try await check(recording, cause: cause)
        var removed: [String] = []
        for path in [recording.path, recording.thumbnail, scrubPath(recording.id)].compactMap({ $0 }) {
            do {
                try FileManager.default.removeItem(atPath: path)
                removed.append(path)
            } catch  where Self.isMissing(error) {
                continue
            } catch {
                throw ApplianceError(
                    .internalError, "cannot delete \(path): \(DataDirectory.reason(error)); nothing else was removed")
            }
        }
        if case .command = cause, let archive, recording.backupState != .none || recording.backupRemotePath != nil {
            await archive.recordingDeleted(recording)
        }
        try await library.delete(id: recording.id)
        announce(recording, cause: cause, files: removed.count)
        return removed
    }

    private func check(_ recording: Recording, cause: Cause) async throws {
        let active = await activeID()
        if recording.state == .recording || active == recording.id {
            throw ApplianceError(.conflict, "recording \(recording.id) is in progress; stop it first")
        }
        guard recording.locked else { return }
        switch cause {
        case .command(force: true), .retention(.lockedShare): return
        case .command(force: false):
            throw ApplianceError(.conflict, "recording \(recording.id) is locked; unlock it or use --force")
        case .retention:
            throw ApplianceError(.conflict, "recording \(recording.id) was locked after retention chose it; it stays")
        }
    }

    private func announce(_ recording: Recording, cause: Cause, files: Int) {
        switch cause {
        case .command:
            events.publish(.deleted(ClipEvent(id: recording.id)))
            logger.info("deleted recording \(recording.id)", metadata: ["files": "\(files)"])
        case .retention(let reason):
            let deletion = RetentionDeletion(recording, reason: reason)
            events.publish(.retentionDeleted(deletion))
            logger.notice(
                "retention: deleted \(recording.id)",
                metadata: [
                    "reason": "\(reason.rawValue)", "bytes": "\(deletion.sizeBytes)",
                    "created_at": "\(recording.createdAt)",
                    "locked": "\(recording.locked)", "backed_up": "\(deletion.backedUp)",
                ])
        }
    }

    package static func isMissing(_ error: Error) -> Bool {
        if case CocoaError.fileNoSuchFile = error { return true }
        return (error as NSError).code == NSFileNoSuchFileError
    }
}

extension RetentionDeletion {
    /// What retention reports and announces for a clip it removes.
    package init(_ recording: Recording, reason: Reason) {
        self.init(
            id: recording.id, path: recording.path, createdAt: recording.createdAt, sizeBytes: recording.sizeBytes ?? 0,
            reason: reason, locked: recording.locked, backedUp: recording.backupState == .done)
    }
}
