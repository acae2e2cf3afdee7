import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Logging
import MediaLibrary
import Settings

/// The record state machine: idle → recording → stopping → idle, one recording at a time. Every front end and
/// timer starts and stops recordings here (through `Appliance.perform`); the recorder owns the session in flight.
///
/// Loop recording (`segment_s` > 0): the recording goes on across files. A little before each cut the next
/// segment's bin is attached beside the current one; the current one ends just before the first keyframe at the
/// cut time and the next one starts on it, so every encoded buffer lands in exactly one file. Closed segments
/// are finalised on the next ticks while recording continues.
package actor Recorder {
    package enum Phase {
        case idle
        case recording(ActiveRecording)
        /// `done` fires once the file is finalised, or given up on.
        case stopping(id: String, done: OneShot<Bool>)
    }

    package struct ActiveRecording: Sendable {
        package var session: RecordingSession
        package var title: String
        /// Camera activations before this file, and the camera active when it started.
        var activationIndex: Int
        var cameraAtStart: String?
        var lastSync: ContinuousClock.Instant
        /// When the recording (its first segment) started, by the monotonic clock (its elapsed time).
        package var recordingStarted: ContinuousClock.Instant
        /// When this file's first frame was due (its row's created_at).
        var segmentStartedAt: Date
        /// Loop recording: the group id (the first segment's id) and this file's number in it.
        package var group: String?
        package var segment: Int?
        /// The title asked for at `record start`, which the segments' titles follow.
        var requestedTitle: String?
        /// Loop recording: the running time this segment nominally began at (the next cut is `segment_s` later).
        var nominalStart: UInt64
        /// Whether its row's `started_at` holds its first frame's time yet (`noteFirstFrame`).
        var firstFrameNoted = false
    }

    /// A segment cut off by the one after it, waiting for its muxer to finish.
    struct ClosingSegment: Sendable {
        package var active: ActiveRecording
        package var cutAt: ContinuousClock.Instant
        /// Why the file ended early, if it did (a write failure).
        package var note: String?
    }

    package let config: ApplianceConfig
    package let data: DataDirectory
    package let library: Library
    package let graph: CaptureGraph
    package let events: EventHub
    package let health: Health
    package let logger: Logger
    let finaliser: RecordingFinaliser
    package let cameras: CameraSwitcher
    package let archive: (any RecordingArchive)?
    /// Set here and by the loop-recording and storage extensions; read by status.
    package var phase = Phase.idle
    private(set) var recordingsThisRun = 0
    var closing: [ClosingSegment] = []
    /// Loop recording's seams since start (metrics).
    package var boundaries = SegmentBoundaries()
    /// Called after each file is finished (retention runs then).
    var fileFinished: (@Sendable () -> Void)?
    /// `protect`: loop segments that start before this are locked as they begin.
    var protectUntil: Date?
    /// Recording bins whose file could not be written (bin name → reason): `tick` ends those files.
    var writeFailures: [String: String] = [:]
    /// A failover under way (`beginEncoderChange`): fired when the new encoder runs.
    var encoderChange: OneShot<Bool>?
    /// Why the last failover happened (the note of a clip made of the failed encoder's frames).
    var failoverNote: String?
    /// After a write failure: recording starts again (same title) once there is room.
    var resumeAfterFailure: (title: String?, since: Date)?
    var writeFailureAction: (@Sendable () async -> Void)?
    /// The filesystem the data folder was on at start: after a write failure, recording resumes only on it (an
    /// unplugged card leaves its mount point on the root filesystem, which must not fill up instead).
    let storageDevice: UInt64?
    /// The storage went away while recording (see `checkStorage`).
    var storageGone = false

    package init(
        config: ApplianceConfig, data: DataDirectory, library: Library, graph: CaptureGraph, events: EventHub,
        health: Health,
        logger: Logger, cameras: CameraSwitcher, archive: (any RecordingArchive)?
    ) {
        (self.config, self.data, self.library, self.graph) = (config, data, library, graph)
        (self.events, self.health, self.logger, self.cameras, self.archive) = (events, health, logger, cameras, archive)
        finaliser = RecordingFinaliser(
            config: config, data: data, library: library, graph: graph, health: health, logger: logger)
        storageDevice = FileSystemSpace.device(of: data.root)
    }

    package func onFileFinished(_ action: @escaping @Sendable () -> Void) { fileFinished = action }
    /// What makes room after a write failure (a retention pass asking for headroom); awaited before the file is
    /// finalised, so that its row can be written on a filesystem that was full.
    package func onWriteFailure(_ action: @escaping @Sendable () async -> Void) { writeFailureAction = action }

    /// From the bus: a recording bin reported an error (its filesink could not write). Handled on the next tick.
    package func writeFailed(bin: String, reason: String) {
        if writeFailures[bin] == nil { writeFailures[bin] = reason }
    }

    /// Locks the segments that begin before `until` (the current one is locked by the caller); false when idle.
    package func protect(until: Date) -> Bool {
        guard isRecording else { return false }
        protectUntil = max(protectUntil ?? until, until)
        return true
    }
    package var segmentS: Double { config.recording.segmentS }
    /// How long before a cut the next segment's bin is attached: it must see the cut keyframe.
    var segmentLead: UInt64 { Self.nanoseconds(min(1, segmentS / 2)) }

    // MARK: commands

    /// `@inline(never)` here and on `stop`: swiftc 6.3.1 crashed in release builds (signal 11 in LLVM's coroutine
    /// split, `emitSetAndGetSwiftErrorValueAround`, "While splitting coroutine …Recorder.toggle…") with both inlined
    /// into `toggle`.
    @inline(never)
    package func start(title: String?) async throws -> RecordingStarted {
        _ = try title.map(TitleRules.valid)
        await waitForTheFinaliser()
        return try await startAcrossEncoderChange(title: title)
    }

    /// How long a start waits for the file being finalised before it is refused as busy.
    static let finaliserWait = Duration.seconds(30)

    /// A start while the last file is being finalised (an event back just after its tail ended, a press right after
    /// a stop) waits for the finaliser instead of being refused: with pre-record the window kept every frame since
    /// that file's end (`RecordingSession`'s end hold), so the next file takes up where it ended.
    private func waitForTheFinaliser() async {
        guard case .stopping(let id, let done) = phase else { return }
        logger.info("a start waits for the recording being finalised", metadata: ["id": "\(id)"])
        _ = await done.wait(timeout: Self.finaliserWait)
    }

    /// Starts one file of a recording; `retired`: with the frames a failed encoder gave, `fromWindowStart`: with the
    /// new encoder's from its first (`startAcrossEncoderChange`).
    func startFile(title: String?, retired: (video: Pad, audio: Pad?)?, fromWindowStart: Bool = false) async throws
        -> RecordingStarted
    {
        let title = try title.map(TitleRules.valid)
        if storageGone || FileSystemSpace.device(of: data.root) != storageDevice {
            throw ApplianceError(
                .unavailable,
                "the recordings' storage is not there (\(data.root) is no longer the filesystem it was at start)")
        }
        resumeAfterFailure = nil
        switch phase {
        case .recording(let active): throw ApplianceError(.conflict, "already recording \(active.session.id)")
        case .stopping: throw ApplianceError(.busy, "a recording is being finalised; try again in a moment")
        case .idle: break
        }
        let cameraAtStart = await cameras.activeName
        let activationIndex = await cameras.activationCount
        var row = finaliser.newRow(title: title, camera: cameraAtStart, hasAudio: graph.audioTee != nil)
        if segmentS > 0 { (row.group, row.segment) = (row.id, 1) }
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
            session = try RecordingSession(
                id: row.id, partialPath: row.path, graph: graph, retired: retired, fromWindowStart: fromWindowStart)
        } catch {
            try? await library.delete(id: row.id)  // nothing was written: no row to keep
            throw ApplianceError(.internalError, "cannot start recording: \(error)")
        }
        graph.tap.requestFrame(id: row.id, atRunningTime: session.startAt + Self.nanoseconds(config.thumbnail.offsetS))
        graph.scrub?.begin(id: row.id, path: data.scrubPath(id: row.id), at: session.startAt)
        // The clip ends at max_duration_s exactly, cut by the probes; `tick` then finalises it. A loop recording
        // runs until stopped: each of its files is at most segment_s long.
        if segmentS == 0 {
            session.requestStop(at: session.startAt + Self.nanoseconds(config.recording.maxDurationS))
        }
        phase = .recording(
            ActiveRecording(
                session: session, title: row.title, activationIndex: activationIndex,
                cameraAtStart: cameraAtStart, lastSync: .now, recordingStarted: .now, segmentStartedAt: row.createdAt,
                group: row.group, segment: row.segment, requestedTitle: title, nominalStart: session.startAt))
        logger.info("recording started", metadata: ["id": "\(row.id)", "title": "\(row.title)"])
        var started = RecordingStarted(
            id: row.id, title: row.title, partialPath: session.partialPath, createdAt: session.createdAt)
        (started.group, started.segment, started.channel) = (row.group, row.segment, row.channel)
        events.publish(.recordingStarted(started))
        return started
    }

    /// `record.toggle`: starts when idle, stops when recording; decided here, on the actor, so two presses at once
    /// cannot both start.
    package func toggle(title: String?) async throws -> ToggleResult {
        switch phase {
        case .idle: return ToggleResult(started: try await start(title: title))
        case .recording: return ToggleResult(stopped: try await stop(title: title, reason: .request))
        case .stopping: throw ApplianceError(.busy, "a recording is being finalised; try again in a moment")
        }
    }

    @inline(never)
    package func stop(title: String?, reason: StopReason, note: String? = nil) async throws -> RecordingResult {
        let title = try title.map(TitleRules.valid)
        if reason == .request { resumeAfterFailure = nil }  // a user's stop also cancels a pending resume
        guard case .recording(var active) = phase else {
            if case .stopping = phase { throw ApplianceError(.busy, "the recording is already being finalised") }
            throw ApplianceError(.conflict, "not recording")
        }
        let done = OneShot<Bool>()
        phase = .stopping(id: active.session.id, done: done)
        // A stop between attaching the next segment and its cut: the next segment has nothing yet, and the one
        // before would otherwise end now while the next began only at the cut (the frames between were lost).
        if let previous = closing.last, active.session.cancelIfNotStarted() {
            previous.active.session.uncut()
            closing.removeLast()
            await discardUnstarted(active)
            active = previous.active
            phase = .stopping(id: active.session.id, done: done)
        }
        defer {
            phase = .idle
            protectUntil = nil
            done.fire(true)
        }
        await finishClosingSegments(waitForAll: true)
        let result = try await finish(
            active, title: title, reason: reason, last: true, note: note, event: ApplianceEvent.recordingStopped)
        fileFinished?()
        return result
    }

    // MARK: timers and shutdown

    /// Called by `RecorderService` a few times a second: finalises closed segments, cuts the next segment, fdatasyncs
    /// a reserved-layout file every `sync_interval_s` (mp4mux rewrites its index on the same cadence; a fragmented
    /// file is synced by its sink once per `sync_interval_s` of media), and finalises a recording the probes ended at
    /// `max_duration_s`.
    package func tick() async {
        await checkStorage()
        await handleWriteFailure()
        await finishClosingSegments(waitForAll: false)
        await noteFirstFrame()
        await resumeIfThereIsRoom()
        guard case .recording(var active) = phase else { return }
        let session = active.session
        if segmentS > 0 {
            // The first segment counts from its first frame (with pre-record that is not the requested start), so
            // every cut falls on the frame grid.
            let origin = active.segment == 1 ? session.timing.videoFirst ?? active.nominalStart : active.nominalStart
            let cut = origin + Self.nanoseconds(segmentS)
            if graph.runningTimeNow + segmentLead >= cut {
                await rollOver(active, nominalCut: cut)
                return
            }
        } else {
            // By the pipeline's clock: a wall clock that jumps must not end a clip early.
            let overdue = graph.runningTimeNow > session.startAt + Self.nanoseconds(config.recording.maxDurationS + 2)
            if session.finalised.isFired || overdue {
                logger.info("recording \(session.id) reached max_duration_s (\(config.recording.maxDurationS) s)")
                do {
                    _ = try await stop(title: nil, reason: .maxDuration)
                } catch {
                    logger.error("automatic stop of \(session.id) failed: \(error)")
                }
                return
            }
        }
        // Fragmented files are synced by their filesink at the end of a fragment, once per sync_interval_s of media
        // (RecordingBin).
        guard config.recording.fileLayout == .reserved else { return }
        let now = ContinuousClock.now
        guard now - active.lastSync >= .seconds(config.recording.syncIntervalS) else { return }
        active.lastSync = now
        phase = .recording(active)
        let path = session.partialPath
        _ = try? await blocking { DataDirectory.dataSync(path: path) }
    }

    /// Shutdown: finalises the recording in flight (or waits for the one being finalised).
    package func shutdown() async {
        switch phase {
        case .idle:
            await finishClosingSegments(waitForAll: true)
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

    /// Finalises one file and announces it (`recording_stopped`, or `segment_closed` while the recording goes on).
    package func finish(
        _ active: ActiveRecording, title: String?, reason: StopReason, last: Bool, note: String?,
        event: (RecordingResult) -> ApplianceEvent
    ) async throws -> RecordingResult {
        let used = await cameras.camerasUsed(since: active.activationIndex, activeAtStart: active.cameraAtStart)
        var result = try await finaliser.finish(
            active, title: title, reason: reason, camerasUsed: used, last: last, note: note
        ).result
        (result.group, result.segment) = (active.group, active.segment)
        recordingsThisRun += 1
        events.publish(event(result))
        await archive?.recordingFinished(result.id)
        if let thumbnail = result.thumbnail {
            events.publish(.thumbnailReady(ThumbnailReady(id: result.id, thumbnail: thumbnail)))
        }
        logger.info(
            "recording finished",
            metadata: [
                "id": "\(result.id)", "path": "\(result.path)", "duration_ms": "\(result.durationMs)",
                "frames": "\(result.videoFrames)", "dropped": "\(result.droppedFrames)", "reason": "\(reason.rawValue)",
            ])
        return result
    }

    // MARK: state for other domains

    /// Id of the clip being recorded or finalised.
    package var activeID: String? {
        switch phase {
        case .idle: nil
        case .recording(let active): active.session.id
        case .stopping(let id, _): id
        }
    }

    package var isRecording: Bool {
        if case .recording = phase { return true }
        return false
    }

    /// A rename of the clip being recorded: status shows the new title at once.
    func retitle(id: String, title: String) {
        guard case .recording(var active) = phase, active.session.id == id else { return }
        active.title = title
        phase = .recording(active)
    }

    /// What `status` shows of the recorder.
    package func live() -> (state: RecorderState, recording: StatusReport.Live?, recordingsThisRun: Int) {
        switch phase {
        case .idle: return (.idle, nil, recordingsThisRun)
        case .stopping: return (.stopping, nil, recordingsThisRun)
        case .recording(let active):
            let t = active.session.timing
            var live = StatusReport.Live(
                id: active.session.id, title: active.title,
                elapsedMs: Int((ContinuousClock.now - active.recordingStarted).seconds * 1000),
                durationMs: t.durationMs,
                videoFrames: t.videoFrames, droppedFrames: t.droppedFrames, avOffsetMs: t.avOffsetMs,
                partialPath: active.session.partialPath)
            (live.group, live.segment) = (active.group, active.segment)
            return (.recording, live, recordingsThisRun)
        }
    }

    package static func nanoseconds(_ seconds: Double) -> UInt64 { UInt64(max(0, seconds) * 1_000_000_000) }
}

extension Recorder: RecordingInProgress {
    package func stopForFullStorage() async {
        _ = try? await stop(title: nil, reason: .storageFull)
    }
}
