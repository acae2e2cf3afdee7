import ApplianceBase
import ApplianceProtocol
import AsyncHTTPClient
import Foundation
import Logging
import MediaLibrary
import Mp4
import NIOCore
import NIOPosix
import ServiceLifecycle
import Settings

/// Backs every finished recording up to WebDAV or S3 (`BackupTarget`), once, whole, eventually. Jobs live in
/// SQLite (`backup_jobs`), so they survive restarts and crashes; one job runs at a time, in the service's loop.
/// Transient failures (network, timeouts, 408/423/425/429/5xx) retry with exponential backoff and jitter, honouring
/// Retry-After; refused credentials, a full server and a missing bucket pause the queue until `backup retry` (or a
/// changed password or secret key file, or the bucket appearing). On graceful shutdown the upload in progress stops
/// at once: nothing half-written is ever left under a final name (a temporary name on WebDAV, an unfinished
/// multipart upload on S3), and the job waits for the next start.
public actor BackupUploader: Service, RecordingArchive, CustomStringConvertible {
    public nonisolated var description: String { "BackupUploader" }
    package let config: ApplianceConfig.Backup
    package let library: Library
    package let data: DataDirectory
    package let events: EventHub
    package let logger: Logger
    package let http: HTTPClient
    var target: any BackupTarget
    package var pauseReason: String?
    /// The pause came from refused credentials: a changed password (or secret key) file lifts it.
    var pausedOnCredentials = false
    /// The pause came from a missing bucket: the bucket appearing lifts it.
    var pausedOnMissingBucket = false
    static let bucketCheckInterval: Duration = .seconds(5)
    /// The password or secret key in use (to notice a changed file while paused).
    package var secret: String?
    static let passwordCheckInterval: Duration = .seconds(2)
    package var nextRetryAt: Date?
    /// Progress of the upload in flight (written from the upload's stream).
    package nonisolated let current = Locked<BackupProgress?>(nil)
    /// Stops the job in flight: its recording was deleted, or the daemon is shutting down.
    nonisolated let stopCurrent = Locked<(recordingId: String, stop: AsyncStream<Void>.Continuation)?>(nil)
    package nonisolated let wake = WakeSignal()

    /// Fails with a one-line reason for a bad URL or unreadable credentials.
    public init(config: ApplianceConfig.Backup, library: Library, data: DataDirectory, events: EventHub, logger: Logger)
        throws
    {
        self.config = config
        self.library = library
        self.data = data
        self.events = events
        self.logger = logger
        // Credentials first: an HTTPClient must be shut down once created, so nothing may throw after it exists.
        let secret = try BackupCredentials.secret(config)
        let tls = try BackupTrust.tlsConfiguration(caFile: config.caFile)
        var settings = HTTPClient.Configuration(tlsConfiguration: tls)
        settings.timeout = .init(connect: .seconds(10), read: .seconds(60))
        settings.redirectConfiguration = .disallow
        // One event loop for all backup connections: the upload waits for it between chunks (see `WebDAVClient.put`).
        let http = HTTPClient(
            eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton.next()), configuration: settings)
        do {
            target = try BackupTargets.make(config, http: http, secret: secret)
        } catch {
            try? http.syncShutdown()
            throw error
        }
        self.http = http
        self.secret = secret
    }

    /// Takes back jobs a dead process had claimed and queues recordings that have none. Before the loop runs.
    package func prepare() async throws {
        try await library.releaseClaimedBackups()
        for id in try await library.recordingsWithoutBackup(onlyLocked: config.onlyLocked) {
            try await enqueueUpload(id)
        }
    }

    /// For a daemon that failed to start after this was built: an HTTPClient must be shut down.
    package func close() async { try? await http.shutdown() }

    // MARK: the loop

    public func run() async throws {
        let stopCurrent = self.stopCurrent
        let wake = self.wake
        await withGracefulShutdownHandler {
            await loop()
        } onGracefulShutdown: {
            stopCurrent.withLock { $0?.stop.yield() }
            wake.signal()
        }
        try? await http.shutdown()
    }

    private func loop() async {
        while !Task.isShuttingDownGracefully {
            if pauseReason != nil {
                await wake.wait(
                    until: pausedOnCredentials
                        ? .now + Self.passwordCheckInterval
                        : pausedOnMissingBucket ? .now + Self.bucketCheckInterval : nil)
                if pauseReason != nil, pausedOnMissingBucket, await target.exists() {
                    resume(because: "the bucket exists now")
                }
                if pauseReason != nil, secretFileChanged() {
                    resume(because: "\(config.isS3 ? "secret_key_file" : "password_file") changed")
                }
                continue
            }
            let claimed: (job: BackupJob?, nextDue: Date?)
            do {
                claimed = try await library.claimNextBackup()
            } catch {
                logger.error("backup: queue unavailable: \(error)")
                await wake.wait(until: .now + .seconds(5))
                continue
            }
            guard let job = claimed.job else {
                nextRetryAt = claimed.nextDue
                await wake.wait(until: claimed.nextDue.map { .now + .seconds(max(0, $0.timeIntervalSinceNow)) })
                continue
            }
            nextRetryAt = nil
            let failure = await runStoppable(job)
            await record(job, failure: failure)
            current.withLock { $0 = nil }
        }
    }

    // MARK: feeding the queue

    /// A recording was saved (or locked, with only_locked): queue its upload.
    public func recordingFinished(_ id: String) async {
        do {
            guard let recording = try await library.fetch(id: id) else { return }
            if config.onlyLocked, !recording.locked { return }
            try await enqueueUpload(id)
        } catch {
            logger.error("backup: cannot queue \(id): \(error)")
        }
    }

    private func enqueueUpload(_ id: String) async throws {
        if try await library.enqueueBackup(.upload, recordingId: id) != nil {
            try await library.update(id: id) { row in
                if row.backupState != .done { row.backupState = .pending }
            }
            wake.signal()
        }
    }

    /// A recording is being deleted: stop its upload and queue the removal of what reached the server.
    public func recordingDeleted(_ recording: Recording) async {
        stopCurrent.withLock { if $0?.recordingId == recording.id { $0?.stop.yield() } }
        let remote = recording.backupRemotePath ?? RemoteLayout(recording: recording).media
        do {
            try await library.enqueueBackup(.delete, recordingId: recording.id, remotePath: remote)
            wake.signal()
        } catch {
            logger.error("backup: cannot queue the remote deletion of \(recording.id): \(error)")
        }
    }

    /// `backup retry [ID]`: lifts a pause (re-reading the password file) and makes failed jobs due now.
    public func retry(recordingId: String?) async throws -> Int {
        do {
            try use(secret: try BackupCredentials.secret(config))
        } catch {
            throw ApplianceError(.badRequest, "\(error)")
        }
        if pauseReason != nil { resume(because: "an operator ran backup retry") }
        let count = try await library.retryBackups(recordingId: recordingId)
        wake.signal()
        return count
    }

    public func status() async -> BackupStatus {
        BackupStatus(
            enabled: true, url: BackupPolicy.redacted(config.url), onlyLocked: config.onlyLocked,
            bandwidthKbps: config.bandwidthKbps, paused: pauseReason != nil, pauseReason: pauseReason,
            counts: (try? await library.backupCounts()) ?? BackupCounts(), current: current.withLock { $0 },
            lastError: try? await library.lastBackupError(), nextRetryAt: nextRetryAt)
    }

    // MARK: pausing

    package func use(secret: String?) throws {
        target = try BackupTargets.make(config, http: http, secret: secret)
        self.secret = secret
    }

    package func resume(because why: String) {
        pauseReason = nil
        pausedOnCredentials = false
        pausedOnMissingBucket = false
        events.publish(.backupResumed(BackupPause(reason: why)))
        logger.notice("backup resumed: \(why)")
    }

    /// While paused on refused credentials: a password or secret key file whose content changed lifts the pause
    /// by itself.
    private func secretFileChanged() -> Bool {
        guard pausedOnCredentials, !BackupCredentials.file(config).isEmpty,
            let fresh = try? BackupCredentials.secret(config), fresh != secret, (try? use(secret: fresh)) != nil
        else { return false }
        return true
    }
}
