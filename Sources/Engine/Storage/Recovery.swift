import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Logging
import MediaLibrary
import Mp4
import Settings

/// Start-up recovery: the database and the files are brought back into agreement. No media is deleted, except a
/// file with nothing in it: a recording killed before any frame was indexed leaves no media file, and its row says
/// so. In order:
/// - every file left in partial/ (a crash) is measured, given a thumbnail, moved into recordings/, and its row
///   becomes `recovered` (created when missing) — or, with nothing playable in it, it is removed (`empty`);
/// - rows and files in recordings/ are matched (`RowReconciler`): missing files, files that came back, files
///   without a row; when none of the recordings' files is there at all, that is one condition — the storage is
///   missing — and no row changes.
public enum Recovery {
    public struct Outcome: Sendable {
        public var report: RecoveryReport
        public var storage: StorageStatus
        /// With the storage missing: some of the absent files, to notice when they are back.
        public var absentSample: [String]
    }

    /// How a row that lost its file is marked; only such rows come back when the file reappears.
    static let missingFile = "file missing"
    /// How a row whose recording left nothing playable is marked.
    package static let nothingRecorded = "nothing recorded"

    /// What start-up must do before it records: the files a crash left in partial/ (a new recording writes there).
    public struct Started: Sendable {
        public var report: RecoveryReport
        /// Files just moved out of partial/ into recordings/.
        public var rescued: Set<String>
        /// When it ran: rows created since are this daemon's own, not the reconcile's to judge.
        public var at: Date
    }

    /// Both steps, one after the other (the storage coming back while the daemon runs).
    public static func run(data: DataDirectory, library: Library, thumbnail: ApplianceConfig.Thumbnail, logger: Logger)
        async throws -> Outcome
    {
        let started = try await start(data: data, library: library, thumbnail: thumbnail, logger: logger)
        return try await reconcile(after: started, data: data, library: library, thumbnail: thumbnail, logger: logger)
    }

    /// The first step, at start-up: partial/ only, bounded by the files a crash can leave (one or two).
    public static func start(
        data: DataDirectory, library: Library, thumbnail: ApplianceConfig.Thumbnail, logger: Logger
    ) async throws -> Started {
        let (began, at) = (ContinuousClock.now, Date())
        var report = RecoveryReport()
        let rescued = try await recoverPartials(
            data: data, library: library, thumbnail: thumbnail, logger: logger, report: &report)
        report.durationMs = (ContinuousClock.now - began) / .milliseconds(1)
        return Started(report: report, rescued: rescued, at: at)
    }

    /// The second step, in the background once the daemon records (`StorageWatch`): every row against the files
    /// (`RowReconciler`), which takes seconds for a million rows. The report adds to the first step's.
    public static func reconcile(
        after started: Started, data: DataDirectory, library: Library, thumbnail: ApplianceConfig.Thumbnail,
        logger: Logger
    ) async throws -> Outcome {
        let began = ContinuousClock.now
        var report = started.report
        let reconciler = RowReconciler(
            data: data, library: library, thumbnail: thumbnail, logger: logger, ownRowsSince: started.at)
        let (storage, absent) = try await reconciler.run(rescued: started.rescued, report: &report)
        report.durationMs += (ContinuousClock.now - began) / .milliseconds(1)
        report.reconciled = true
        return Outcome(report: report, storage: storage, absentSample: absent)
    }

    /// Files left in partial/; returns the paths they now have in recordings/.
    private static func recoverPartials(
        data: DataDirectory, library: Library, thumbnail: ApplianceConfig.Thumbnail,
        logger: Logger, report: inout RecoveryReport
    ) async throws -> Set<String> {
        var rescued = Set<String>()
        // A compaction the crash interrupted: its original is still whole beside it.
        for leftover in data.partialFiles(suffix: Mp4Compaction.temporarySuffix) {
            try? FileManager.default.removeItem(atPath: leftover)
        }
        // An export the crash interrupted: its sources are whole (the folder held hard links).
        for name in (try? FileManager.default.contentsOfDirectory(atPath: data.partialDir)) ?? []
        where name.hasPrefix("export-") {
            try? FileManager.default.removeItem(atPath: "\(data.partialDir)/\(name)")
        }
        for partial in data.partialFiles() {
            let id = ((partial as NSString).lastPathComponent as NSString).deletingPathExtension.lowercased()
            let existing = try? await library.fetch(id: id)
            // Index what the interrupted file holds (it is fragmented, or carries reserved index room) before it
            // is judged: only then do GStreamer's readers see all of it.
            let finished =
                (DataDirectory.fileSize(partial) ?? 0) > 0
                ? await finishInterrupted(partial, id: id, logger: logger) : .empty
            let probe =
                finished != .empty
                ? try? await blocking {
                    try MediaInspector.inspect(path: partial, offset: ClockTime(seconds: thumbnail.offsetS))
                }
                : nil
            guard let probe, probe.frame != nil else {
                try await discardEmpty(
                    partial, id: id, row: existing, library: library, logger: logger, report: &report)
                continue
            }
            let date = existing?.createdAt ?? fileDate(partial)
            let destination = data.finalPath(id: id, date: date)
            var row =
                existing
                ?? Recording(
                    id: id, title: Timestamps.title(date), createdAt: date, path: destination, state: .recovered)
            row.endedAt = row.endedAt ?? modificationDate(partial)
            do {
                try data.commit(partial, to: destination)
                row.path = destination
                rescued.insert(destination)
                await measure(&row, thumbnail: thumbnail, data: data, frame: probe.frame)
            } catch {
                row.path = partial
                row.state = .failed
                row.failureReason = "could not move the partial file: \(error)"
            }
            let final = row
            if existing != nil {
                try await library.update(id: id) { $0 = final }
            } else {
                try await library.insert(final)
            }
            report.recovered.append(id)
            logger.notice(
                "recovered interrupted recording",
                metadata: [
                    "id": "\(id)", "path": "\(row.path)", "state": "\(row.state.rawValue)",
                    "duration_ms": "\(row.durationMs.map(String.init) ?? "?")",
                ])
        }
        return rescued
    }

    /// Finishes an interrupted file in place (Mp4Finishing); a file it cannot handle is judged as it is.
    private static func finishInterrupted(_ partial: String, id: String, logger: Logger) async -> Mp4Finishing.Outcome?
    {
        do {
            let outcome = try await blocking { try Mp4Finishing.finish(path: partial) }
            if case .indexed(_, _, let refused?) = outcome {
                logger.warning(
                    "interrupted recording \(id): kept up to the last fragment that could be read; not \(refused)")
            } else {
                logger.info("interrupted recording \(id): \(outcome)")
            }
            return outcome
        } catch {
            logger.warning("interrupted recording \(id) could not be indexed: \(error)")
            return nil
        }
    }

    /// A partial file with no decodable video: the daemon died before the muxer indexed a frame (the first fragment
    /// or index update comes `sync_interval_s` after the start). It is removed; its row, if any, says why.
    private static func discardEmpty(
        _ partial: String, id: String, row: Recording?, library: Library, logger: Logger,
        report: inout RecoveryReport
    ) async throws {
        let size = DataDirectory.fileSize(partial) ?? 0
        try? FileManager.default.removeItem(atPath: partial)
        let reason =
            size == 0
            ? "\(nothingRecorded): the daemon stopped before any media reached the file"
            : """
            \(nothingRecorded): the daemon stopped before the first frame was indexed (within sync_interval_s of \
            the start)
            """
        if row != nil {
            try await library.update(id: id) { row in
                row.state = .failed
                row.failureReason = reason
                row.sizeBytes = nil
            }
        }
        report.empty.append(id)
        logger.notice(
            "removed the empty file of an interrupted recording",
            metadata: ["id": "\(id)", "bytes": "\(size)", "reason": "\(reason)"])
    }

    /// Fills what can be measured from the file: duration, codecs, size, and a thumbnail (from `frame` when the
    /// caller has already decoded one).
    package static func measure(
        _ row: inout Recording, thumbnail: ApplianceConfig.Thumbnail, data: DataDirectory, frame: Sample? = nil
    ) async {
        row.sizeBytes = DataDirectory.fileSize(row.path)
        let path = row.path
        do {
            let info = try await blocking { try Discoverer.inspect(path: path) }
            row.durationMs = info.duration.map { Int($0.milliseconds) }
            if let video = info.video.first {
                row.videoCodec = video.codec
                row.width = video.width
                row.height = video.height
                row.framerate = video.framerate > 0 ? Int(video.framerate.rounded()) : nil
            }
            row.audioCodec = info.audio.first?.codec
            row.audioPresent = !info.audio.isEmpty
            if row.state != .failed { row.state = .recovered }
        } catch {
            row.state = .failed
            row.failureReason = "unplayable: \(error)"
            return
        }
        let thumbnailPath = data.thumbnailPath(id: row.id)
        let written = try? await blocking {
            guard
                let frame = try frame
                    ?? MediaInspector.inspect(path: path, offset: ClockTime(seconds: thumbnail.offsetS)).frame
            else { return false }
            _ = try frame.writeJPEG(
                to: thumbnailPath, maxWidth: thumbnail.maxWidth, maxHeight: thumbnail.maxHeight,
                quality: thumbnail.quality)
            return true
        }
        if written == true { row.thumbnail = thumbnailPath }
    }

    static func isRecordingID(_ text: String) -> Bool {
        text.count == 36 && text.allSatisfy { $0.isHexDigit || $0 == "-" }
    }

    static func fileDate(_ path: String) -> Date {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return (attributes?[.creationDate] as? Date) ?? (attributes?[.modificationDate] as? Date) ?? Date()
    }

    package static func modificationDate(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
