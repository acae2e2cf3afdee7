import ApplianceBase
import ApplianceProtocol
import Foundation

/// The storage under the data folder going away while recording (a card unplugged, a disk unmounted), and coming
/// back. The data folder's path then resolves to another filesystem (the bare mount point, usually on the root
/// filesystem): noticed by its device id, checked every tick. The recording ends (its file stays on the storage,
/// as far as it was written), status and a `storage_missing` event say so, and nothing is written to the mount
/// point meanwhile (`record start` is refused). When the same filesystem is back, start-up recovery runs again
/// over it (the interrupted file is measured and moved into recordings/), `storage_available` is sent, and
/// recording resumes.
extension Recorder {
    func checkStorage() async {
        let root = data.root
        let present = FileSystemSpace.device(of: root) == storageDevice
        if !storageGone, !present {
            storageGone = true
            let status = StorageStatus(
                state: .missing, recordingsDir: data.recordingsDir,
                detail: "the storage under \(root) went away while the appliance was running")
            health.storage = status
            logger.error("recordings storage is gone: \(root) is no longer the filesystem it was at start")
            events.publish(.storageMissing(status))
            if case .recording(let active) = phase {
                do {
                    _ = try await stop(title: nil, reason: .storageMissing)
                } catch {
                    logger.error("recording \(active.session.id) ended with its storage: \(error)")
                }
                resumeAfterFailure = (active.requestedTitle, Date())
            }
        } else if storageGone, present {
            storageGone = false
            let data = data
            let library = library
            let thumbnail = config.thumbnail
            let logger = logger
            if let outcome = try? await Recovery.run(
                data: data, library: library, thumbnail: thumbnail, logger: logger),
                !outcome.report.recovered.isEmpty
            {
                logger.notice(
                    "recovered \(outcome.report.recovered.count) file(s) interrupted when the storage went away")
            }
            let status = StorageStatus(state: .ok, recordingsDir: data.recordingsDir)
            health.storage = status
            logger.notice("recordings storage is back: \(root)")
            events.publish(.storageAvailable(status))
            await resumeIfThereIsRoom()
        }
    }
}
