import Foundation
import GStreamerKit
import Logging

/// Owns the appliance's state. The socket, the web page and the shutters all send it commands; one at a time,
/// because it is an actor. GStreamer's blocking calls run off the cooperative pool (`blocking`).
public actor Controller {
    enum Phase {
        case idle
        case recording(ActiveRecording)
        case stopping(id: String)
    }

    struct ActiveRecording {
        var session: RecordingSession
        var title: String
        /// Camera activations before this recording, and the camera active when it started.
        var activationIndex: Int
        var cameraAtStart: String?
        var maxDurationTask: Task<Void, Never>
        var syncTask: Task<Void, Never>
    }

    public let config: ApplianceConfig
    public let data: DataDirectory
    public let library: Library
    public let events: EventHub
    let graph: CaptureGraph
    public let switcher: CameraSwitcher
    /// Nil when `[backup] url` is empty.
    public private(set) var backup: BackupUploader?
    let devices = DeviceMonitor()
    let logger: Logger
    var phase = Phase.idle
    private let startedAt = Date()
    private var recordingsThisRun = 0
    private var lastError: String?
    private var busTask: Task<Void, Never>?
    private var watchers: [Task<Void, Never>] = []
    private var recovery: Recovery.Report?

    /// Starts the WebDAV backup uploader (`[backup] url` set).
    public func startBackup() async throws {
        guard config.backup.enabled else { return }
        let uploader = try BackupUploader(config: config.backup, library: library, data: data, events: events, logger: logger)
        do {
            try await uploader.start()
        } catch {
            await uploader.stop()
            throw error
        }
        backup = uploader
        logger.info("backup to \(BackupUploader.redacted(config.backup.url))\(config.backup.onlyLocked ? " (locked clips only)" : "")")
    }

    /// Remembers what start-up recovery did, for `status`.
    public func setRecoveryReport(_ report: Recovery.Report) { recovery = report }

    /// Builds and starts the live graph. Throws with a clear message for bad fragments or devices.
    public init(config: ApplianceConfig, data: DataDirectory, library: Library, events: EventHub, logger: Logger) throws {
        self.config = config
        self.data = data
        self.library = library
        self.events = events
        self.logger = logger
        let fragments = try FragmentLibrary.locate(configured: config.pipelinesDir)
        graph = try CaptureGraph(config: config, fragments: fragments, logger: logger)
        try graph.start()
        switcher = CameraSwitcher(graph: graph, events: events, logger: logger)
        logger.info("live graph running", metadata: [
            "cameras": "\(graph.cameraNames.map { "\($0)=\(graph.cameraKinds[$0] ?? "?")" }.joined(separator: ","))",
            "audio": "\(graph.audioKind)", "preview": "\(graph.previewKind)", "encoder": "\(config.video.encoder)",
            "size": "\(config.video.width)x\(config.video.height)@\(config.video.framerate)",
        ])
    }

    /// Brings up the cameras and starts watching the bus, camera streams and devices.
    public func start() async {
        if let messages = graph.busReader?.messages {
            busTask = Task { [weak self] in
                for await message in messages { await self?.handle(message) }
            }
        }
        let switcher = self.switcher, ended = graph.cameraEnded
        watchers.append(Task {
            for await name in ended { await switcher.cameraFailed(name, reason: "its stream ended") }
        })
        await switcher.startInitial()
        if devices.start() {
            let changes = devices.changes, events = self.events
            watchers.append(Task {
                for await change in changes {
                    switch change {
                    case .added(let device): events.publish("device_added", device)
                    case .removed(let device): events.publish("device_removed", device)
                    }
                    await switcher.refreshDevices()
                }
            })
        }
        // Device nodes can appear without the monitor noticing (no provider, containers): also look every 2 s.
        watchers.append(Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                await switcher.refreshDevices()
            }
        })
    }

    private func handle(_ message: Message) async {
        switch message {
        case .error(let error):
            lastError = error.description
            logger.error("gstreamer: \(error.description)")
            events.publish("error", ["source": error.element, "message": error.message])
            // "/appliance/camera-<name>/…": a camera failed; the switcher moves the output elsewhere.
            let parts = error.element.split(separator: "/")
            if parts.count >= 2, parts[1].hasPrefix("camera-"), parts[1] != "camera-filler" {
                await switcher.cameraFailed(String(parts[1].dropFirst("camera-".count)), reason: error.message)
            }
        case .warning(let warning):
            logger.warning("gstreamer: \(warning.description)")
        default:
            break
        }
    }

    // MARK: record start / stop

    public func startRecording(title: String?) async throws -> RecordingStarted {
        let title = try title.map(Self.validTitle)
        switch phase {
        case .recording(let active):
            throw ControlError(.conflict, "already recording \(active.session.id)")
        case .stopping:
            throw ControlError(.busy, "a recording is being finalised; try again in a moment")
        case .idle:
            break
        }
        let id = UUID().uuidString.lowercased()
        let createdAt = Date()
        var row = Recording(id: id, title: title ?? Timestamps.title(createdAt), createdAt: createdAt,
                            path: data.partialPath(id: id), state: .recording)
        row.startedAt = createdAt
        row.width = config.video.width
        row.height = config.video.height
        row.framerate = config.video.framerate
        row.videoCodec = "h264"
        row.audioCodec = graph.audioTee == nil ? nil : "aac"
        row.audioPresent = graph.audioTee != nil
        let cameraAtStart = await switcher.activeName
        let activationIndex = await switcher.activationCount
        row.camera = cameraAtStart
        do {
            try await library.insert(row)
        } catch {
            throw ControlError(.internalError, "cannot record: the database refused the new row: \(error)")
        }
        // The actor may have served other requests while the row was written.
        guard case .idle = phase else {
            try? await library.delete(id: id)
            throw ControlError(.conflict, "another recording started meanwhile")
        }
        let session: RecordingSession
        do {
            session = try RecordingSession(id: id, partialPath: data.partialPath(id: id), graph: graph)
        } catch {
            try? await library.delete(id: id)  // nothing was written: no row to keep
            throw ControlError(.internalError, "cannot start recording: \(error)")
        }
        let offset = UInt64(config.thumbnail.offsetS * 1_000_000_000)
        graph.tap.requestFrame(id: id, atRunningTime: session.startAt + offset)
        let finalTitle = row.title
        let maxDuration = config.recording.maxDurationS
        let maxTask = Task { [weak self] in
            try? await Task.sleep(for: .seconds(maxDuration))
            guard !Task.isCancelled else { return }
            // A fresh task: stopping cancels this one, and a cancelled task could not wait for the muxer.
            Task { await self?.autoStop(id: id) }
        }
        let syncTask = Self.syncLoop(path: session.partialPath, interval: config.recording.syncIntervalS)
        phase = .recording(ActiveRecording(session: session, title: finalTitle, activationIndex: activationIndex,
                                           cameraAtStart: cameraAtStart, maxDurationTask: maxTask, syncTask: syncTask))
        logger.info("recording started", metadata: ["id": "\(id)", "title": "\(finalTitle)"])
        let started = RecordingStarted(id: id, title: finalTitle, partialPath: session.partialPath, createdAt: Timestamps.iso(session.createdAt))
        events.publish("recording_started", started)
        return started
    }

    public func stopRecording(title: String?, reason: String = "request") async throws -> RecordingResult {
        let title = try title.map(Self.validTitle)
        guard case .recording(let active) = phase else {
            if case .stopping = phase { throw ControlError(.busy, "the recording is already being finalised") }
            throw ControlError(.conflict, "not recording")
        }
        phase = .stopping(id: active.session.id)
        defer { phase = .idle }
        active.maxDurationTask.cancel()
        active.syncTask.cancel()
        let session = active.session
        session.requestStop(at: graph.runningTimeNow)
        if await session.finalised.wait(timeout: .seconds(2)) == nil {
            logger.warning("recording \(session.id): streams stopped flowing, ending them")
            session.forceEndOfStreams()
            if await session.finalised.wait(timeout: .seconds(5)) == nil {
                logger.error("recording \(session.id): the muxer did not finish; the file is kept as written so far")
            }
        }
        try await blocking { session.teardown() }
        let endedAt = Date()
        let timing = session.timing
        let thumbnailFrame = graph.tap.finishRequest(id: session.id)
        let thumbnailPath = data.thumbnailPath(id: session.id)
        let thumb = config.thumbnail
        let logger = self.logger
        let thumbnail: String? = try await blocking {
            guard let frame = thumbnailFrame else { return nil }
            do {
                try frame.writeJPEG(to: thumbnailPath, maxWidth: thumb.maxWidth, maxHeight: thumb.maxHeight, quality: thumb.quality)
                return thumbnailPath
            } catch {
                logger.error("thumbnail for \(session.id): \(error)")
                return nil
            }
        }
        let finalPath = data.finalPath(id: session.id, date: session.createdAt)
        let data = self.data
        do {
            try await blocking { try data.commit(session.partialPath, to: finalPath) }
        } catch {
            lastError = "\(error)"
            throw ControlError(.internalError, "recording \(session.id) finished but could not be moved: \(error) (kept at \(session.partialPath))")
        }
        recordingsThisRun += 1
        let size = (try? FileManager.default.attributesOfItem(atPath: finalPath)[.size] as? NSNumber)?.int64Value ?? 0
        var finalTitle = title ?? active.title
        let camerasUsed = await switcher.camerasUsed(since: active.activationIndex, activeAtStart: active.cameraAtStart)
        do {
            // A rename may have landed while this stop was waiting: only an explicit title overrides the row's.
            let updated = try await library.update(id: session.id) { row in
                row.state = .complete
                row.path = finalPath
                row.thumbnail = thumbnail
                if let title { row.title = title }
                row.camera = camerasUsed.isEmpty ? nil : camerasUsed.joined(separator: ",")
                row.endedAt = endedAt
                row.durationMs = timing.durationMs
                row.sizeBytes = size
                row.audioPresent = timing.audioBuffers > 0
                if timing.audioBuffers == 0 { row.audioCodec = nil }
            }
            finalTitle = updated.title
        } catch {
            // The file is safe in recordings/; the next start-up adopts it if the row stays behind.
            lastError = "\(error)"
            logger.error("recording \(session.id): cannot complete its row: \(error)")
        }
        let result = RecordingResult(
            id: session.id, title: finalTitle, path: finalPath, thumbnail: thumbnail,
            durationMs: timing.durationMs, videoFrames: timing.videoFrames, droppedFrames: timing.droppedFrames,
            audioDurationMs: timing.audioDurationMs, avOffsetMs: timing.avOffsetMs, sizeBytes: size,
            width: config.video.width, height: config.video.height, framerate: config.video.framerate,
            createdAt: Timestamps.iso(session.createdAt), endedAt: Timestamps.iso(endedAt), stopReason: reason,
            startLatencyMs: timing.startLatencyMs,
            stopLatencyMs: timing.lastFrameClock.flatMap { last in
                graph.runningTimeNow >= last ? Double(graph.runningTimeNow - last) / 1_000_000 : nil
            })
        events.publish("recording_stopped", result)
        await backup?.recordingFinished(result.id)
        if let thumbnail { events.publish("thumbnail_ready", ["id": result.id, "thumbnail": thumbnail]) }
        logger.info("recording finished", metadata: [
            "id": "\(result.id)", "path": "\(result.path)", "duration_ms": "\(result.durationMs)",
            "frames": "\(result.videoFrames)", "dropped": "\(result.droppedFrames)", "reason": "\(reason)",
        ])
        return result
    }

    /// Id of the clip being recorded or finalised.
    var activeRecordingID: String? {
        switch phase {
        case .idle: nil
        case .recording(let active): active.session.id
        case .stopping(let id): id
        }
    }

    func setActiveTitle(_ title: String) {
        if case .recording(var active) = phase {
            active.title = title
            phase = .recording(active)
        }
    }

    private func autoStop(id: String) async {
        guard case .recording(let active) = phase, active.session.id == id else { return }
        logger.info("recording \(id) reached max_duration_s (\(config.recording.maxDurationS) s)")
        do {
            _ = try await stopRecording(title: nil, reason: "max_duration")
        } catch {
            logger.error("automatic stop of \(id) failed: \(error)")
        }
    }

    /// fdatasync the partial file every `interval`: a SIGKILL loses nothing written before the last sync,
    /// and mp4mux rewrites its index on the same cadence.
    private static func syncLoop(path: String, interval: Double) -> Task<Void, Never> {
        Task.detached(priority: .utility) {
            var fd: Int32 = -1
            defer { if fd >= 0 { close(fd) } }
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(interval))
                if fd < 0 { fd = open(path, O_RDONLY) }
                if fd >= 0 { _ = fdatasync(fd) }
            }
        }
    }

    // MARK: cameras

    public func cameras() async -> CameraSwitcher.CamerasReport {
        let found = devices.devices
        return await switcher.report(devices: found)
    }

    public func switchCamera(_ name: String?) async throws -> CameraSwitcher.SwitchResult {
        try await switcher.switchTo(name)
    }

    // MARK: snapshot and status

    public func snapshot() async throws -> SnapshotResult {
        guard let frame = graph.latestFrame else { throw ControlError(.unavailable, "no video frame yet") }
        let id = UUID().uuidString.lowercased()
        let path = data.snapshotPath(id: id)
        let size = try await blocking { try frame.writeJPEG(to: path, quality: 92) }
        logger.info("snapshot \(path)")
        return SnapshotResult(id: id, path: path, width: size.width, height: size.height)
    }

    public func status() async -> StatusReport {
        let activeCamera = await switcher.activeName
        var live: StatusReport.Live?
        var state = "idle"
        switch phase {
        case .idle: break
        case .stopping: state = "stopping"
        case .recording(let active):
            state = "recording"
            let t = active.session.timing
            live = .init(id: active.session.id, title: active.title,
                         elapsedMs: Int(Date().timeIntervalSince(active.session.createdAt) * 1000),
                         durationMs: t.durationMs, videoFrames: t.videoFrames, droppedFrames: t.droppedFrames,
                         avOffsetMs: t.avOffsetMs, partialPath: active.session.partialPath)
        }
        return StatusReport(
            state: state, recording: live, cameras: graph.cameraNames, activeCamera: activeCamera ?? "",
            cameraSources: graph.cameraKinds, audioSource: graph.audioKind, preview: graph.previewKind,
            encoder: config.video.encoder, width: config.video.width, height: config.video.height,
            framerate: config.video.framerate, dataDir: data.root, uptimeS: Date().timeIntervalSince(startedAt),
            recordingsThisRun: recordingsThisRun, lastError: lastError, gstreamerVersion: GStreamer.version,
            recordingsTotal: library.count, databaseBytes: library.sizeBytes, recovery: recovery,
            output: { let f = graph.flow.snapshot
                return OutputStats(frames: f.outputFrames, slotCollisions: f.slotCollisions, filledSlots: f.filledSlots,
                                   missingSlots: f.missingSlots, missingAtEncoder: f.encoderMissing) }())
    }

    // MARK: shutdown

    /// Finalises a running recording, then stops the graph.
    public func shutdown() async {
        if case .stopping = phase {
            for _ in 0..<100 {
                try? await Task.sleep(for: .milliseconds(100))
                if case .stopping = phase { continue }
                break
            }
        }
        if case .recording = phase {
            do {
                let result = try await stopRecording(title: nil, reason: "shutdown")
                logger.info("finalised \(result.path) before exit")
            } catch {
                logger.error("could not finalise the recording before exit: \(error)")
            }
        }
        busTask?.cancel()
        for watcher in watchers { watcher.cancel() }
        await backup?.stop()
        devices.stop()
        events.finishAll()
        try? await blocking { [graph] in graph.stop() }
    }
}
