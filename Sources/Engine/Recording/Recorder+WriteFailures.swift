import ApplianceBase
import ApplianceProtocol
import Foundation

/// A recording bin whose file could not be written (ENOSPC, the storage gone): the file ends, retention makes
/// room, and recording resumes in a new file.
extension Recorder {

    /// Ends the file that could not be written: retention makes room first, then the file is finalised with every
    /// fragment indexed before the failure (Mp4Finishing cuts what follows the last whole fragment and appends the
    /// index), and the recording starts again in a new file once there is room.
    func handleWriteFailure() async {
        guard !writeFailures.isEmpty else { return }
        let failures = writeFailures
        writeFailures = [:]
        var current: (active: ActiveRecording, reason: String)?
        for (bin, detail) in failures {
            let reason = "the file could not be written: \(detail)"
            if let index = closing.firstIndex(where: { RecordingBin.name(id: $0.active.session.id) == bin }) {
                logger.error("loop recording: segment \(closing[index].active.session.id): \(reason)")
                closing[index].note = reason
            } else if case .recording(let active) = phase, RecordingBin.name(id: active.session.id) == bin {
                current = (active, reason)
            }
        }
        await writeFailureAction?()
        guard let (active, reason) = current else { return }
        logger.error("recording \(active.session.id): \(reason); ending it and resuming once there is room")
        guard case .recording(let still) = phase, still.session === active.session else { return }
        do {
            _ = try await stop(title: nil, reason: .writeFailed, note: reason)
        } catch {
            // Nothing of it was written whole (the card filled before its first fragment): no clip, its row says so.
            logger.error("recording \(active.session.id) could not be finalised after the write failure: \(error)")
        }
        resumeAfterFailure = (active.requestedTitle, Date())
    }

    /// Starts recording again after a write failure once the filesystem has room (retention frees it, or a user).
    func resumeIfThereIsRoom() async {
        guard let resume = resumeAfterFailure, case .idle = phase else { return }
        let root = data.root
        guard FileSystemSpace.device(of: root) == storageDevice else { return }  // the storage is gone: wait for it
        let headroom = Retention.headroom(
            filesystemBytes: FileSystemSpace.total(at: root) ?? 0, minFreeMb: config.storage.minFreeMb)
        guard (FileSystemSpace.available(at: root) ?? 0) >= headroom / 2 else { return }
        resumeAfterFailure = nil
        do {
            let started = try await start(title: resume.title)
            logger.notice("recording resumed after the write failure", metadata: ["id": "\(started.id)"])
        } catch {
            logger.error("cannot resume recording after the write failure: \(error)")
            resumeAfterFailure = (resume.title, resume.since)
        }
    }
}
