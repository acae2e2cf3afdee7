import ApplianceBase
import ApplianceProtocol
import Foundation

/// Loop recording: attaching the next segment beside the current one, cutting, finalising closed segments, and a
/// stop that comes between an attach and its cut (see the type's comment in Recorder.swift).
extension Recorder {
    /// Removes a segment that was attached but never began (a stop came before its cut): no file, no row.
    func discardUnstarted(_ segment: ActiveRecording) async {
        let session = segment.session
        _ = try? await blocking { session.teardown(last: false) }
        _ = graph.tap.finishRequest(id: session.id)
        try? FileManager.default.removeItem(atPath: session.partialPath)
        graph.scrub?.end(id: session.id, at: 0)
        try? FileManager.default.removeItem(atPath: data.scrubPath(id: session.id))
        try? await library.delete(id: session.id)
    }

    /// Attaches the next segment beside the current one and cuts the current one where the next begins.
    func rollOver(_ current: ActiveRecording, nominalCut: UInt64) async {
        let segment = (current.segment ?? 1) + 1
        let cameraNow = await cameras.activeName
        let activationIndex = await cameras.activationCount
        let title = current.requestedTitle.map { "\($0) (\(segment))" }
        let nowRT = graph.runningTimeNow
        let startsAt = Date().addingTimeInterval(nominalCut > nowRT ? Double(nominalCut - nowRT) / 1e9 : 0)
        var row = finaliser.newRow(title: title, camera: cameraNow, hasAudio: graph.audioTee != nil, startsAt: startsAt)
        (row.group, row.segment) = (current.group, segment)
        if let until = protectUntil, until >= row.createdAt {
            (row.locked, row.lockReason) = (true, "event")
        }
        do {
            try await library.insert(row)
        } catch {
            logger.error("loop recording: cannot add the row of segment \(segment): \(error); the current file goes on")
            return
        }
        guard case .recording(let still) = phase, still.session === current.session else {
            try? await library.delete(id: row.id)
            return
        }
        // A late tick (a slow database write) must not cut in the past: the next segment would miss the keyframe.
        let nominal = max(nominalCut, graph.runningTimeNow + RecordingSession.startLead)
        let cut = nominal
        let next: RecordingSession
        do {
            next = try RecordingSession(id: row.id, partialPath: row.path, graph: graph, continuing: cut)
        } catch {
            try? await library.delete(id: row.id)
            logger.error("loop recording: cannot start segment \(segment): \(error); the current file goes on")
            return
        }
        graph.tap.requestFrame(id: row.id, atRunningTime: cut + Self.nanoseconds(config.thumbnail.offsetS))
        current.session.cut(at: cut)
        graph.scrub?.end(id: current.session.id, at: cut)
        graph.scrub?.begin(id: row.id, path: data.scrubPath(id: row.id), at: cut)
        closing.append(ClosingSegment(active: still, cutAt: .now))
        phase = .recording(
            ActiveRecording(
                session: next, title: row.title, activationIndex: activationIndex,
                cameraAtStart: cameraNow, lastSync: .now, recordingStarted: current.recordingStarted,
                segmentStartedAt: row.createdAt,
                group: current.group, segment: segment, requestedTitle: current.requestedTitle,
                nominalStart: nominal))
        logger.info(
            "loop recording: segment \(segment) starts",
            metadata: ["id": "\(row.id)", "group": "\(current.group ?? "")"])
        if row.locked { events.publish(.locked(ClipEvent(id: row.id))) }
    }

    /// Notes the seam between a closed segment and the one after it (still closing, or being written), once both
    /// frames are known; a stop inside the attach window leaves no next segment, and no seam.
    func measureBoundary(after closed: ActiveRecording) {
        guard let group = closed.group, let number = closed.segment else { return }
        var candidates = closing.map(\.active)
        if case .recording(let current) = phase { candidates.append(current) }
        guard let next = candidates.first(where: { $0.group == group && $0.segment == number + 1 }) else { return }
        let (before, after) = (closed.session.timing, next.session.timing)
        guard let last = before.videoLast, let first = after.videoFirst else { return }
        boundaries.note(lastFrame: last, nextFirstFrame: first, frameInterval: before.frameInterval)
    }

    /// Finalises segments whose muxer has finished (or, with `waitForAll`, every one: at stop and shutdown).
    func finishClosingSegments(waitForAll: Bool) async {
        let due = closing.filter {
            waitForAll || $0.active.session.finalised.isFired || ContinuousClock.now - $0.cutAt > .seconds(5)
        }
        guard !due.isEmpty else { return }
        for entry in due { measureBoundary(after: entry.active) }  // while the segments after them are still listed
        closing.removeAll { entry in due.contains { $0.active.session === entry.active.session } }
        for entry in due {
            do {
                _ = try await finish(
                    entry.active, title: nil, reason: .segment, last: false, note: entry.note,
                    event: ApplianceEvent.segmentClosed)
            } catch {
                logger.error("loop recording: segment \(entry.active.session.id) could not be finalised: \(error)")
            }
            fileFinished?()
        }
    }
}
