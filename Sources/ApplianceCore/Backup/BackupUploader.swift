import AsyncHTTPClient
import NIOPosix
import Foundation
import Logging
import NIOCore

/// Backs every finished recording up to WebDAV, once, whole, eventually. Jobs live in SQLite (`backup_jobs`), so
/// they survive restarts and crashes; one job runs at a time. Transient failures (network, timeouts, 408/423/425/
/// 429/5xx) retry with exponential backoff and jitter, honouring Retry-After; 401/403 and 507 pause the queue until
/// `backup retry` (or a restart with a new config).
public actor BackupUploader {
    public struct Progress: Codable, Sendable {
        public var id: String
        public var bytesDone: Int64
        public var bytesTotal: Int64
        public var rateKbps: Double
    }

    public struct Status: Codable, Sendable {
        public var enabled: Bool
        /// The server URL without credentials.
        public var url: String
        public var onlyLocked: Bool
        public var bandwidthKbps: Int
        public var paused: Bool
        public var pauseReason: String?
        public var counts: [String: Int]
        public var current: Progress?
        public var lastError: String?
        public var nextRetryAt: String?
    }

    let config: ApplianceConfig.Backup
    let library: Library
    let data: DataDirectory
    let events: EventHub
    let logger: Logger
    private let http: HTTPClient
    private var client: WebDAVClient
    private var pauseReason: String?
    /// The pause came from refused credentials: a changed password file lifts it.
    private var pausedOnCredentials = false
    /// The password in use (to notice a changed password file while paused).
    private var password: String?
    static let passwordCheckInterval: TimeInterval = 2
    private var current: Progress?
    private var currentRecording: String?
    private var currentTask: Task<Void, Never>?
    private var loop: Task<Void, Never>?
    private var nextRetryAt: Date?
    private let wake: AsyncStream<Void>.Continuation
    private let wakeups: AsyncStream<Void>

    /// Fails with a one-line reason for a bad URL or unreadable credentials.
    public init(config: ApplianceConfig.Backup, library: Library, data: DataDirectory, events: EventHub, logger: Logger) throws {
        self.config = config
        self.library = library
        self.data = data
        self.events = events
        self.logger = logger
        // Credentials first: an HTTPClient must be shut down once created, so nothing may throw after it exists.
        let password = try BackupCredentials.password(file: config.passwordFile)
        let tls = try BackupTrust.tlsConfiguration(caFile: config.caFile)
        var settings = HTTPClient.Configuration(tlsConfiguration: tls)
        settings.timeout = .init(connect: .seconds(10), read: .seconds(60))
        settings.redirectConfiguration = .disallow
        // One event loop for all backup connections: the upload waits for it between chunks (see `WebDAVClient.put`).
        http = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton.next()), configuration: settings)
        client = WebDAVClient(http: http, base: config.url, username: config.username, password: password)
        self.password = password
        (wakeups, wake) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Takes back jobs a dead process had claimed, queues recordings that have none, and starts uploading.
    public func start() async throws {
        try await library.releaseClaimedBackups()
        for id in try await library.recordingsWithoutBackup(onlyLocked: config.onlyLocked) {
            try await enqueueUpload(id)
        }
        loop = Task { await self.run() }
    }

    public func stop() async {
        loop?.cancel()
        currentTask?.cancel()
        wake.finish()
        _ = await loop?.value
        try? await http.shutdown()
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
            wake.yield()
        }
    }

    /// A recording is being deleted: cancel its upload and queue the removal of what reached the server.
    public func recordingDeleted(_ recording: Recording) async {
        if currentRecording == recording.id { currentTask?.cancel() }
        let remote = recording.backupRemotePath ?? RemoteLayout(recording: recording).media
        do {
            try await library.enqueueBackup(.delete, recordingId: recording.id, remotePath: remote)
            wake.yield()
        } catch {
            logger.error("backup: cannot queue the remote deletion of \(recording.id): \(error)")
        }
    }

    /// `backup retry [ID]`: lifts a pause (re-reading the password file) and makes failed jobs due now.
    public func retry(recordingId: String?) async throws -> Int {
        do {
            use(password: try BackupCredentials.password(file: config.passwordFile))
        } catch {
            throw ControlError(.badRequest, "\(error)")
        }
        if pauseReason != nil { resume(because: "an operator ran backup retry") }
        let count = try await library.retryBackups(recordingId: recordingId)
        wake.yield()
        return count
    }

    public func status() async -> Status {
        Status(enabled: true, url: Self.redacted(config.url), onlyLocked: config.onlyLocked, bandwidthKbps: config.bandwidthKbps,
               paused: pauseReason != nil, pauseReason: pauseReason, counts: (try? await library.backupCounts()) ?? [:],
               current: current, lastError: try? await library.lastBackupError(),
               nextRetryAt: nextRetryAt.map(Timestamps.iso))
    }

    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        components.user = nil
        components.password = nil
        return components.string ?? url
    }

    // MARK: the loop

    private func use(password: String?) {
        client = WebDAVClient(http: http, base: config.url, username: config.username, password: password)
        self.password = password
    }

    private func resume(because why: String) {
        pauseReason = nil
        pausedOnCredentials = false
        events.publish("backup_resumed", ["reason": why])
        logger.notice("backup resumed: \(why)")
    }

    /// While paused on refused credentials: a password file whose content changed lifts the pause by itself.
    private func passwordFileChanged() -> Bool {
        guard pausedOnCredentials, !config.passwordFile.isEmpty,
              let fresh = try? BackupCredentials.password(file: config.passwordFile), fresh != password else { return false }
        use(password: fresh)
        return true
    }

    private func run() async {
        while !Task.isCancelled {
            if pauseReason != nil {
                await waitForWake(until: pausedOnCredentials ? Date().addingTimeInterval(Self.passwordCheckInterval) : nil)
                if pauseReason != nil, passwordFileChanged() { resume(because: "password_file changed") }
                continue
            }
            let claimed: (job: BackupJob?, nextDue: Date?)
            do {
                claimed = try await library.claimNextBackup()
            } catch {
                logger.error("backup: queue unavailable: \(error)")
                await waitForWake(until: Date().addingTimeInterval(5))
                continue
            }
            guard let job = claimed.job else {
                nextRetryAt = claimed.nextDue
                await waitForWake(until: claimed.nextDue)
                continue
            }
            nextRetryAt = nil
            let task = Task { await self.process(job) }
            currentTask = task
            await task.value
            currentTask = nil
        }
    }

    /// Sleeps until `deadline` (nil: indefinitely) or until woken by new work.
    private func waitForWake(until deadline: Date?) async {
        let wakeups = self.wakeups
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                var iterator = wakeups.makeAsyncIterator()
                _ = await iterator.next()
            }
            if let deadline {
                group.addTask { try? await Task.sleep(for: .seconds(max(0, deadline.timeIntervalSinceNow))) }
            }
            _ = await group.next()
            group.cancelAll()
        }
    }

    private func process(_ job: BackupJob) async {
        do {
            switch job.kind {
            case .upload: try await upload(job)
            case .delete: try await deleteRemote(job)
            }
            try await library.finishBackup(job, state: .done, error: nil)
        } catch {
            await handleFailure(job, error)
        }
        current = nil
        currentRecording = nil
    }

    private func upload(_ job: BackupJob) async throws {
        guard let recording = try await library.fetch(id: job.recordingId) else { return }  // deleted meanwhile
        guard recording.state == .complete || recording.state == .recovered else { return }
        if config.onlyLocked, !recording.locked {
            try await library.update(id: recording.id) { $0.backupState = .skipped }
            return
        }
        guard FileManager.default.fileExists(atPath: recording.path) else { throw LocalFileMissing(path: recording.path) }
        let layout = recording.backupRemotePath.flatMap { RemoteLayout(mediaPath: $0) } ?? RemoteLayout(recording: recording)
        let size = (try? FileManager.default.attributesOfItem(atPath: recording.path)[.size] as? NSNumber)?.int64Value ?? 0
        currentRecording = recording.id
        current = Progress(id: recording.id, bytesDone: 0, bytesTotal: size, rateKbps: 0)
        try await library.update(id: recording.id) { row in
            row.backupState = .uploading
            row.backupRemotePath = layout.media
            row.backupAttempts = job.attempts + 1
        }
        events.publish("backup_started", ["id": recording.id, "remote": layout.media])

        try await client.makeCollections(layout.folder)
        let temporary = layout.temporary(layout.media)
        let started = ContinuousClock.now
        let reporter = ProgressReporter(id: recording.id, total: size, started: started, events: events) { [weak self] progress in
            Task { await self?.setProgress(progress) }
        }
        try await client.put(file: recording.path, to: temporary, rateKbps: config.bandwidthKbps) { sent in reporter.report(sent) }
        try await client.move(temporary, to: layout.media)
        let remoteSize = try await client.size(of: layout.media)
        guard remoteSize == size else {
            throw WebDAVError.verification("\(layout.media) is \(remoteSize.map(String.init) ?? "missing") bytes on the server, \(size) here")
        }
        if let thumbnail = recording.thumbnail, let jpeg = FileManager.default.contents(atPath: thumbnail) {
            try await client.put(data: jpeg, to: layout.temporary(layout.thumbnail))
            try await client.move(layout.temporary(layout.thumbnail), to: layout.thumbnail)
        }
        var sidecar = recording
        sidecar.backupState = .done
        sidecar.backupRemotePath = layout.media
        sidecar.backupError = nil
        let json = (try? Response.encoder.encode(sidecar)) ?? Data("{}".utf8)
        try await client.put(data: json, to: layout.temporary(layout.sidecar))
        try await client.move(layout.temporary(layout.sidecar), to: layout.sidecar)

        let seconds = (ContinuousClock.now - started) / .seconds(1)
        try await library.update(id: recording.id) { row in
            row.backupState = .done
            row.backupError = nil
            row.backedUpAt = Date()
        }
        events.publish("backup_done", ["id": recording.id, "remote": layout.media, "bytes": String(size),
                                       "rate_kbps": String(format: "%.0f", seconds > 0 ? Double(size) * 8 / 1000 / seconds : 0)])
        logger.info("backed up \(recording.id)", metadata: ["remote": "\(layout.media)", "bytes": "\(size)"])
    }

    private func setProgress(_ progress: Progress) {
        if current?.id == progress.id { current = progress }
    }

    private func deleteRemote(_ job: BackupJob) async throws {
        guard let media = job.remotePath, let layout = RemoteLayout(mediaPath: media) else { return }
        for path in [layout.media, layout.thumbnail, layout.sidecar, layout.temporary(layout.media)] {
            try await client.delete(path)
        }
        events.publish("backup_deleted", ["id": job.recordingId, "remote": media])
        logger.info("removed \(media) from the server")
    }

    private func handleFailure(_ job: BackupJob, _ error: Error) async {
        if error is CancellationError || Task.isCancelled {
            // Shutdown or the recording was deleted: the job simply waits (a delete job follows if needed).
            try? await library.finishBackup(job, state: .pending, error: nil)
            return
        }
        let message = "\(error)"
        switch Self.classify(error) {
        case .pause(let reason):
            pauseReason = reason
            if case WebDAVError.status(let code, _, _, _) = error { pausedOnCredentials = code == 401 || code == 403 }
            try? await library.finishBackup(job, state: .pending, error: message)
            events.publish("backup_paused", ["reason": reason])
            logger.error("backup paused: \(reason)")
        case .retry(let retryAfter):
            let base = config.retryBaseS * pow(2, Double(min(job.attempts, 12)))
            let delay = max(min(base, 300) * Double.random(in: 0.5...1.0), retryAfter ?? 0)
            let at = Date().addingTimeInterval(delay)
            try? await library.finishBackup(job, state: .pending, error: message, retryAt: at)
            nextRetryAt = at
            events.publish("backup_retry", ["id": job.recordingId, "error": message, "retry_in_s": String(format: "%.1f", delay)])
            logger.warning("backup of \(job.recordingId) failed (\(message)); retrying in \(String(format: "%.1f", delay)) s")
        case .fail:
            try? await library.finishBackup(job, state: .failed, error: message, retryAt: Date())
            events.publish("backup_failed", ["id": job.recordingId, "error": message])
            logger.error("backup of \(job.recordingId) failed: \(message); `appliance ctl backup retry` to try again")
        }
        if job.kind == .upload {
            try? await library.update(id: job.recordingId) { row in
                row.backupError = message
                if case .fail = Self.classify(error) { row.backupState = .failed } else { row.backupState = .pending }
            }
        }
    }

    enum Verdict { case retry(Double?), pause(String), fail }

    static func classify(_ error: Error) -> Verdict {
        switch error {
        case WebDAVError.status(let code, _, _, let retryAfter):
            switch code {
            case 401, 403: return .pause("the server refused the credentials (HTTP \(code)); fix backup.username or the password file (a change to it is picked up by itself), or run `appliance ctl backup retry`")
            case 507: return .pause("the server is out of storage (HTTP 507); free space, then run `appliance ctl backup retry`")
            case 408, 423, 425, 429, 500...599: return .retry(retryAfter)
            default: return .fail
            }
        case WebDAVError.transport, WebDAVError.verification: return .retry(nil)
        case is LocalFileMissing: return .fail
        default: return .retry(nil)
        }
    }
}

/// The recording's file is gone from the disk: nothing to upload until it is back (`backup retry` then).
struct LocalFileMissing: Error, CustomStringConvertible {
    var path: String
    var description: String { "local file missing: \(path)" }
}

/// Publishes upload progress at most once a second, from whatever thread the upload stream runs on.
final class ProgressReporter: Sendable {
    let id: String
    let total: Int64
    let started: ContinuousClock.Instant
    let events: EventHub
    let update: @Sendable (BackupUploader.Progress) -> Void
    private let lastReport = Locked(ContinuousClock.now - .seconds(2))

    init(id: String, total: Int64, started: ContinuousClock.Instant, events: EventHub, update: @escaping @Sendable (BackupUploader.Progress) -> Void) {
        self.id = id
        self.total = total
        self.started = started
        self.events = events
        self.update = update
    }

    func report(_ sent: Int64) {
        let now = ContinuousClock.now
        let due = lastReport.withLock { last -> Bool in
            guard now - last >= .seconds(1) || sent == total else { return false }
            last = now
            return true
        }
        guard due else { return }
        let seconds = (now - started) / .seconds(1)
        let progress = BackupUploader.Progress(id: id, bytesDone: sent, bytesTotal: total, rateKbps: seconds > 0 ? Double(sent) * 8 / 1000 / seconds : 0)
        update(progress)
        events.publish("backup_progress", progress)
    }
}
