import ApplianceBase
import ApplianceProtocol
import Foundation
import MediaLibrary
import Mp4

/// One job: an upload (media to a temporary name, MOVE, size check, thumbnail, sidecar) or a remote deletion,
/// and what its outcome does to the queue.
extension BackupUploader {
    /// Runs `job` until it ends or is stopped (its recording deleted, or shutdown); the error it ended with.
    func runStoppable(_ job: BackupJob) async -> Error? {
        let (stops, stop) = AsyncStream.makeStream(of: Void.self)
        stopCurrent.withLock { $0 = (job.recordingId, stop) }
        defer { stopCurrent.withLock { $0 = nil } }
        if Task.isShuttingDownGracefully { return CancellationError() }
        return await withTaskGroup(of: Error??.self) { group in
            group.addTask {
                do {
                    try await self.perform(job)
                    return .some(nil)
                } catch {
                    return .some(error)
                }
            }
            group.addTask {
                for await _ in stops { return .some(CancellationError()) }
                return nil  // cancelled: the job ended first
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? nil
        }
    }

    private func perform(_ job: BackupJob) async throws {
        switch job.kind {
        case .upload: try await upload(job)
        case .delete: try await deleteRemote(job)
        }
    }

    private func upload(_ job: BackupJob) async throws {
        guard let recording = try await library.fetch(id: job.recordingId) else { return }  // deleted meanwhile
        guard recording.state == .complete || recording.state == .recovered else { return }
        if config.onlyLocked, !recording.locked {
            try await library.update(id: recording.id) { $0.backupState = .skipped }
            return
        }
        guard FileManager.default.fileExists(atPath: recording.path) else {
            throw LocalFileMissing(path: recording.path)
        }
        let layout =
            recording.backupRemotePath.flatMap { RemoteLayout(mediaPath: $0) } ?? RemoteLayout(recording: recording)
        let size = DataDirectory.fileSize(recording.path) ?? 0
        current.withLock { $0 = BackupProgress(id: recording.id, bytesDone: 0, bytesTotal: size, rateKbps: 0) }
        try await library.update(id: recording.id) { row in
            row.backupState = .uploading
            row.backupRemotePath = layout.media
            row.backupAttempts = job.attempts + 1
        }
        events.publish(.backupStarted(BackupTransfer(id: recording.id, remote: layout.media)))

        let started = ContinuousClock.now
        let reporter = ProgressReporter(
            id: recording.id, total: size, started: started, events: events, current: current)
        try await target.store(
            file: recording.path, size: size, at: layout.media, resume: resume(of: job), rateKbps: config.bandwidthKbps
        ) {
            sent in reporter.report(sent)
        }
        /// The rate is the media's alone: the thumbnail, the sidecar and the row after it are not paced, and on a
        /// busy machine their round trips would make a capped upload look slower than the cap.
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        if let thumbnail = recording.thumbnail, let jpeg = FileManager.default.contents(atPath: thumbnail) {
            try await target.store(data: jpeg, at: layout.thumbnail)
        }
        var sidecar = recording
        sidecar.backupState = .done
        sidecar.backupRemotePath = layout.media
        sidecar.backupError = nil
        let json = (try? WireFormat.encoder.encode(sidecar)) ?? Data("{}".utf8)
        try await target.store(data: json, at: layout.sidecar)

        try await library.update(id: recording.id) { row in
            row.backupState = .done
            row.backupError = nil
            row.backedUpAt = Date()
        }
        let rate = seconds > 0 ? Double(size) * 8 / 1000 / seconds : 0
        events.publish(
            .backupDone(BackupDone(id: recording.id, remote: layout.media, bytes: size, rateKbps: rate.rounded())))
        logger.info("backed up \(recording.id)", metadata: ["remote": "\(layout.media)", "bytes": "\(size)"])
    }

    private func deleteRemote(_ job: BackupJob) async throws {
        guard let media = job.remotePath, let layout = RemoteLayout(mediaPath: media) else { return }
        try await target.remove(layout)
        events.publish(.backupDeleted(BackupTransfer(id: job.recordingId, remote: media)))
        logger.info("removed \(media) from the server")
    }

    /// Where the job's upload stands, kept in its queue row.
    private func resume(of job: BackupJob) -> UploadResume {
        guard let id = job.id else { return .none }
        let library = library
        let logger = logger
        return UploadResume(
            saved: job.resume, save: { try await library.saveBackupResume(jobId: id, $0) },
            note: { logger.info("backup: \($0)") })
    }

    /// Writes a job's outcome to the queue: done, back to pending (stopped), retry later, paused, or failed.
    package func record(_ job: BackupJob, failure: Error?) async {
        guard let error = failure else {
            try? await library.finishBackup(job, state: .done, error: nil)
            return
        }
        if error is CancellationError {
            // Shutdown or the recording was deleted: the job simply waits (a delete job follows if needed).
            try? await library.finishBackup(job, state: .pending, error: nil)
            return
        }
        let message = "\(error)"
        let verdict = BackupPolicy.classify(error)
        switch verdict {
        case .pause(let reason):
            pauseReason = reason
            pausedOnCredentials = BackupPolicy.isRefusedCredentials(error)
            pausedOnMissingBucket = BackupPolicy.isMissingBucket(error)
            try? await library.finishBackup(job, state: .pending, error: message)
            events.publish(.backupPaused(BackupPause(reason: reason)))
            logger.error("backup paused: \(reason)")
        case .retry(let retryAfter):
            let delay = BackupPolicy.delay(attempts: job.attempts, base: config.retryBaseS, retryAfter: retryAfter)
            let at = Date().addingTimeInterval(delay)
            try? await library.finishBackup(job, state: .pending, error: message, retryAt: at)
            nextRetryAt = at
            events.publish(
                .backupRetry(
                    BackupRetryScheduled(id: job.recordingId, error: message, retryInS: (delay * 10).rounded() / 10)))
            logger.warning(
                "backup of \(job.recordingId) failed (\(message)); retrying in \(String(format: "%.1f", delay)) s")
        case .fail:
            try? await library.finishBackup(job, state: .failed, error: message, retryAt: Date())
            events.publish(.backupFailed(BackupFailure(id: job.recordingId, error: message)))
            logger.error("backup of \(job.recordingId) failed: \(message); `appliance ctl backup retry` to try again")
        }
        if job.kind == .upload {
            _ = try? await library.update(id: job.recordingId) { row in
                row.backupError = message
                if case .fail = verdict { row.backupState = .failed } else { row.backupState = .pending }
            }
        }
    }
}
