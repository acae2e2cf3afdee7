import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import MediaLibrary
import Mp4
import Settings

/// Turns a recording session into a clip: ends its streams, waits for the muxer, detaches the bin, writes the
/// thumbnail, moves the file durably into recordings/ and completes the row. Also builds the row a recording
/// starts with. Holds no state: the recorder owns the session.
struct RecordingFinaliser: Sendable {
    struct Finished: Sendable {
        package var result: RecordingResult
    }

    package let config: ApplianceConfig
    package let data: DataDirectory
    package let library: Library
    package let graph: CaptureGraph
    package let health: Health
    package let logger: Logger

    /// The row written when a recording starts (state `recording`, file in partial/).
    /// `startsAt`: when its first frame is due (a loop segment's cut, a moment ahead); default now.
    func newRow(title: String?, camera: String?, hasAudio: Bool, startsAt: Date = Date()) -> Recording {
        let id = UUID().uuidString.lowercased()
        let createdAt = startsAt
        var row = Recording(
            id: id, title: title ?? Timestamps.title(createdAt), createdAt: createdAt,
            path: data.partialPath(id: id), state: .recording)
        row.startedAt = createdAt
        row.width = config.video.width
        row.height = config.video.height
        row.framerate = config.video.framerate
        row.videoCodec = "h264"
        row.audioCodec = hasAudio ? "aac" : nil
        row.audioPresent = hasAudio
        row.camera = camera
        row.channel = config.channels.first?.name
        return row
    }

    /// `last`: no segment of the same recording follows (the encoders may stop).
    /// `note`: why the file ended early (a write failure), kept in the row's `note`.
    package func finish(
        _ active: Recorder.ActiveRecording, title: String?, reason: StopReason, camerasUsed: [String], last: Bool,
        note: String? = nil
    ) async throws -> Finished {
        let session = active.session
        await endStreams(of: session, encoderGone: reason == .encoderFailed)
        try await blocking { session.teardown(last: last) }
        let timing = session.timing
        // A segment's end is its cut, not the moment the tick got round to finalising it: its start (the row's, which
        // a jump of the wall clock may have moved since) and its length.
        let stoppedAt = Date()
        let segmentEnd: @Sendable (Date) -> Date? = {
            reason == .segment ? $0.addingTimeInterval(Double(timing.durationMs) / 1000) : nil
        }
        guard timing.videoFrames > 0 else {
            return try await discardEmpty(
                session, reason: "the camera delivered no frame before the recording was stopped")
        }
        guard await finishFile(session.partialPath, id: session.id) != .empty else {
            return try await discardEmpty(
                session,
                reason: "no video fragment of the file was written whole"
                    + (note.map { " (\($0))" } ?? " before it ended (\(reason.rawValue))"))
        }
        let thumbnail = await writeThumbnail(for: session)
        let finalPath = data.finalPath(id: session.id, date: session.createdAt)
        do {
            try await blocking { [data = data] in try data.commit(session.partialPath, to: finalPath) }
        } catch {
            health.noteError("\(error)")
            throw ApplianceError(
                .internalError,
                "recording \(session.id) finished but could not be moved: \(error) (kept at \(session.partialPath))")
        }
        let size = DataDirectory.fileSize(finalPath) ?? 0
        let completed = await completeRow(
            of: session, fallback: (title ?? active.title, segmentEnd(active.segmentStartedAt) ?? stoppedAt)
        ) { row in
            row.state = .complete
            row.path = finalPath
            if let note { row.note = note }
            row.thumbnail = thumbnail
            if let title { row.title = title }
            row.camera = camerasUsed.isEmpty ? nil : camerasUsed.joined(separator: ",")
            // Its first frame's time (see `Recorder.noteFirstFrame`; a clip stopped before a tick noted it).
            session.noteFirstFrame(in: &row)
            // A segment ends its length after its first frame: a loop's first segment began after its request by
            // the start's latency (1.7 s in the lab's slow VM, which left a gap before the next segment's cut).
            row.endedAt = segmentEnd(row.startedAt ?? row.createdAt) ?? stoppedAt
            row.durationMs = timing.durationMs
            row.sizeBytes = size
            row.audioPresent = timing.audioBuffers > 0
            if timing.audioBuffers == 0 { row.audioCodec = nil }
        }
        let (createdAt, finalTitle, endedAt) = completed
        let now = graph.runningTimeNow
        let v = config.video
        var result = RecordingResult(
            id: session.id, title: finalTitle, path: finalPath, thumbnail: thumbnail,
            durationMs: timing.durationMs, videoFrames: timing.videoFrames, droppedFrames: timing.droppedFrames,
            audioDurationMs: timing.audioDurationMs, avOffsetMs: timing.avOffsetMs, sizeBytes: size,
            width: v.width, height: v.height, framerate: v.framerate, createdAt: createdAt, endedAt: endedAt,
            stopReason: reason, startLatencyMs: timing.startLatencyMs,
            stopLatencyMs: timing.lastFrameClock.flatMap { now >= $0 ? Double(now - $0) / 1_000_000 : nil })
        result.channel = config.channels.first?.name
        return Finished(result: result)
    }

    /// Writes the finished file's row; a rename may have landed while the stop was waiting, so only an explicit
    /// title overrides the row's. Answers the clip's start (moved with the row if the wall clock jumped since the
    /// recording began), its title and its end; when the row cannot be written, the file is safe in recordings/ (the
    /// next start-up adopts it) and the answer is the session's start and the `fallback`.
    private func completeRow(
        of session: RecordingSession, fallback: (title: String, endedAt: Date),
        _ change: @escaping @Sendable (inout Recording) -> Void
    ) async -> (createdAt: Date, title: String, endedAt: Date) {
        do {
            let updated = try await library.update(id: session.id, change)
            return (
                session.createdAt.addingTimeInterval(Double(updated.redatedMs ?? 0) / 1000), updated.title,
                updated.endedAt ?? fallback.endedAt
            )
        } catch {
            health.noteError("\(error)")
            logger.error("recording \(session.id): cannot complete its row: \(error)")
            return (session.createdAt, fallback.title, fallback.endedAt)
        }
    }

    /// How long a stop waits for a stream that takes nothing before it ends it from here.
    static let stallLimit: Duration = .seconds(2)
    /// How long a stop waits in all for streams that are still catching up (a backlog of sound behind a busy
    /// encoder), before it ends them: the audio queue holds 5 s.
    static let catchUpLimit: Duration = .seconds(12)

    /// Asks the probes to end both streams now and waits for the muxer to finish the file. Streams still flowing
    /// towards the stop time are waited for: on a busy CPU the sound reaches the file seconds behind the picture,
    /// and ending it after a fixed 2 s cut that backlog off (the lab VM: 1 to 2 s of a 4 s clip's sound). Streams
    /// that took nothing for `stallLimit` are ended from here.
    /// `encoderGone`: the video encoder failed, and nothing more comes from the encoded tee: a file fed from it
    /// ends now (one fed by a window gets the window's end of stream after its last frame).
    private func endStreams(of session: RecordingSession, encoderGone: Bool = false) async {
        session.requestStop(onFrameBoundaryAfter: graph.runningTimeNow)
        graph.scrub?.end(id: session.id, at: graph.runningTimeNow)
        // A bin that refused data cannot finish its file: it keeps what its last index update covers.
        if session.refused { return }
        if encoderGone, !session.fromWindow { session.forceEndOfStreams() }
        let clock = ContinuousClock()
        let giveUp = clock.now + Self.catchUpLimit
        var taken = session.buffersTaken
        while await session.finalised.wait(timeout: Self.stallLimit) == nil {
            let now = session.buffersTaken
            if now > taken, clock.now < giveUp {
                logger.debug(
                    """
                    recording \(session.id): still catching up at its stop (\(now - taken) buffers in \
                    \(Self.stallLimit))
                    """
                )
                taken = now
                continue
            }
            logger.warning("recording \(session.id): streams stopped flowing, ending them")
            session.forceEndOfStreams()
            if await session.finalised.wait(timeout: .seconds(5)) == nil {
                logger.error("recording \(session.id): the muxer did not finish; the file is kept as written so far")
            }
            return
        }
    }

    /// Makes the file a finished MP4: the fragmented file the muxer wrote gets its index (Mp4Finishing: one index
    /// appended, one 16-byte write, no media copied), and a reserved-layout file loses its unused index room. A
    /// failure keeps the file as it is (it still plays in ffmpeg and browsers).
    @discardableResult
    private func finishFile(_ path: String, id: String) async -> Mp4Finishing.Outcome? {
        do {
            let outcome = try await blocking { try Mp4Finishing.finish(path: path) }
            switch outcome {
            case .indexed(_, let dropped, let refused) where dropped > 0 || refused != nil:
                logger.notice(
                    "recording \(id): finished without its last \(dropped) bytes\(refused.map { " (\($0))" } ?? "")")
            default:
                logger.debug("recording \(id): \(outcome)")
            }
            return outcome
        } catch {
            logger.warning("recording \(id): the file could not be finished: \(error)")
            return nil
        }
    }

    private func writeThumbnail(for session: RecordingSession) async -> String? {
        guard let frame = graph.tap.finishRequest(id: session.id) else { return nil }
        let path = data.thumbnailPath(id: session.id)
        let thumb = config.thumbnail
        do {
            try await blocking {
                _ = try frame.writeJPEG(
                    to: path, maxWidth: thumb.maxWidth, maxHeight: thumb.maxHeight, quality: thumb.quality)
            }
            return path
        } catch {
            logger.error("thumbnail for \(session.id): \(error)")
            return nil
        }
    }

    /// No video frame reached the file (the streams never delivered, or no fragment was written whole): no media
    /// file is left behind, and the row says so.
    private func discardEmpty(_ session: RecordingSession, reason why: String) async throws -> Finished {
        _ = graph.tap.finishRequest(id: session.id)
        try? FileManager.default.removeItem(atPath: session.partialPath)
        let reason = "\(Recovery.nothingRecorded): \(why)"
        _ = try? await library.update(id: session.id) { row in
            row.state = .failed
            row.failureReason = reason
        }
        logger.error("recording \(session.id): \(reason)")
        throw ApplianceError(.internalError, "recording \(session.id): \(reason)")
    }
}
