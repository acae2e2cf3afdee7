import ApplianceProtocol
import Foundation
import Logging

/// The record state machine: idle → recording → stopping → idle, one recording at a time. Every front end and
/// timer starts and stops recordings here (through `Appliance.perform`); the recorder owns the session in flight.
actor Recorder {
    enum Phase {
        case idle
        case recording(ActiveRecording)
        /// `done` fires once the file is finalised, or given up on.
        case stopping(id: String, done: OneShot<Bool>)
    }

    struct ActiveRecording: Sendable {
        var session: RecordingSession
        var title: String
        /// Camera activations before this recording, and the camera active when it started.
        var activationIndex: Int
        var cameraAtStart: String?
        var lastSync: ContinuousClock.Instant
    }

    let shared: Shared
    let finaliser: RecordingFinaliser
    let cameras: CameraSwitcher
    let backup: BackupUploader?
    private(set) var phase = Phase.idle
    private(set) var recordingsThisRun = 0

    init(shared: Shared, cameras: CameraSwitcher, backup: BackupUploader?) {
        (self.shared, self.cameras, self.backup) = (shared, cameras, backup)
        finaliser = RecordingFinaliser(shared: shared)
    }

    private var library: Library { shared.library }
    private var graph: CaptureGraph { shared.graph }
    private var config: ApplianceConfig { shared.config }
    private var events: EventHub { shared.events }
    private var logger: Logger { shared.logger }

    // MARK: commands

    func start(title: String?) async throws -> RecordingStarted {
        let title = try title.map(TitleRules.valid)
        switch phase {
        case .recording(let active): throw ApplianceError(.conflict, "already recording \(active.session.id)")
        case .stopping: throw ApplianceError(.busy, "a recording is being finalised; try again in a moment")
        case .idle: break
        }
        let cameraAtStart = await cameras.activeName
        let activationIndex = await cameras.activationCount
        let row = finaliser.newRow(title: title, camera: cameraAtStart, hasAudio: graph.audioTee != nil)
        do {
            try await library.insert(row)
        } catch {
            throw ApplianceError(.internalError, "cannot record: the database refused the new row: \(error)")
        }
        // The actor may have served other requests while the row was written.
        guard case .idle = phase else {
            try? await library.delete(id: row.id)
            throw ApplianceError(.conflict, "another recording started meanwhile")
        }
        let session: RecordingSession
        do {
            session = try RecordingSession(id: row.id, partialPath: row.path, graph: graph)
        } catch {
            try? await library.delete(id: row.id)  // nothing was written: no row to keep
            throw ApplianceError(.internalError, "cannot start recording: \(error)")
        }
        graph.tap.requestFrame(id: row.id, atRunningTime: session.startAt + Self.nanoseconds(config.thumbnail.offsetS))
        // The clip ends at max_duration_s exactly, cut by the probes; `tick` then finalises it.
        session.requestStop(at: session.startAt + Self.nanoseconds(config.recording.maxDurationS))
        phase = .recording(ActiveRecording(session: session, title: row.title, activationIndex: activationIndex,
                                           cameraAtStart: cameraAtStart, lastSync: .now))
        logger.info("recording started", metadata: ["id": "\(row.id)", "title": "\(row.title)"])
        let started = RecordingStarted(id: row.id, title: row.title, partialPath: session.partialPath, createdAt: session.createdAt)
        events.publish(.recordingStarted(started))
        return started
    }

    func stop(title: String?, reason: StopReason) async throws -> RecordingResult {
        let title = try title.map(TitleRules.valid)
        guard case .recording(let active) = phase else {
            if case .stopping = phase { throw ApplianceError(.busy, "the recording is already being finalised") }
            throw ApplianceError(.conflict, "not recording")
        }
        let done = OneShot<Bool>()
        phase = .stopping(id: active.session.id, done: done)
        defer {
            phase = .idle
            done.fire(true)
        }
        let used = await cameras.camerasUsed(since: active.activationIndex, activeAtStart: active.cameraAtStart)
        let finished = try await finaliser.finish(active, title: title, reason: reason, camerasUsed: used)
        recordingsThisRun += 1
        let result = finished.result
        events.publish(.recordingStopped(result))
        await backup?.recordingFinished(result.id)
        if let thumbnail = result.thumbnail { events.publish(.thumbnailReady(ThumbnailReady(id: result.id, thumbnail: thumbnail))) }
        logger.info("recording finished", metadata: [
            "id": "\(result.id)", "path": "\(result.path)", "duration_ms": "\(result.durationMs)",
            "frames": "\(result.videoFrames)", "dropped": "\(result.droppedFrames)", "reason": "\(reason.rawValue)",
        ])
        return result
    }

    // MARK: timers and shutdown

    /// Called by `RecorderService` a few times a second: fdatasyncs the file every `sync_interval_s` (a SIGKILL then
    /// loses nothing written before the last sync; mp4mux rewrites its index on the same cadence), and finalises a
    /// recording the probes ended at `max_duration_s`.
    func tick() async {
        guard case .recording(var active) = phase else { return }
        let session = active.session
        let overdue = Date().timeIntervalSince(session.createdAt) > config.recording.maxDurationS + 2
        if session.finalised.isFired || overdue {
            logger.info("recording \(session.id) reached max_duration_s (\(config.recording.maxDurationS) s)")
            do {
                _ = try await stop(title: nil, reason: .maxDuration)
            } catch {
                logger.error("automatic stop of \(session.id) failed: \(error)")
            }
            return
        }
        let now = ContinuousClock.now
        guard now - active.lastSync >= .seconds(config.recording.syncIntervalS) else { return }
        active.lastSync = now
        phase = .recording(active)
        let path = session.partialPath
        _ = try? await blocking { DataDirectory.dataSync(path: path) }
    }

    /// Shutdown: finalises the recording in flight (or waits for the one being finalised).
    func shutdown() async {
        switch phase {
        case .idle:
            return
        case .stopping(_, let done):
            _ = await done.wait(timeout: .seconds(30))
        case .recording:
            do {
                let result = try await stop(title: nil, reason: .shutdown)
                logger.info("finalised \(result.path) before exit")
            } catch {
                logger.error("could not finalise the recording before exit: \(error)")
            }
        }
    }

    // MARK: state for other domains

    /// Id of the clip being recorded or finalised.
    var activeID: String? {
        switch phase {
        case .idle: nil
        case .recording(let active): active.session.id
        case .stopping(let id, _): id
        }
    }

    /// A rename of the clip being recorded: status shows the new title at once.
    func retitle(id: String, title: String) {
        guard case .recording(var active) = phase, active.session.id == id else { return }
        active.title = title
        phase = .recording(active)
    }

    /// What `status` shows of the recorder.
    func live() -> (state: RecorderState, recording: StatusReport.Live?, recordingsThisRun: Int) {
        switch phase {
        case .idle: return (.idle, nil, recordingsThisRun)
        case .stopping: return (.stopping, nil, recordingsThisRun)
        case .recording(let active):
            let t = active.session.timing
            return (.recording, StatusReport.Live(
                id: active.session.id, title: active.title,
                elapsedMs: Int(Date().timeIntervalSince(active.session.createdAt) * 1000), durationMs: t.durationMs,
                videoFrames: t.videoFrames, droppedFrames: t.droppedFrames, avOffsetMs: t.avOffsetMs,
                partialPath: active.session.partialPath), recordingsThisRun)
        }
    }

    static func nanoseconds(_ seconds: Double) -> UInt64 { UInt64(max(0, seconds) * 1_000_000_000) }
}
