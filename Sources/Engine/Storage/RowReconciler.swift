import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import MediaLibrary
import Settings

/// Matches the rows with the files in recordings/ at start-up, in batches (100,000 rows answer in well under a
/// second, files there or not):
/// - a row whose file is gone becomes `failed` ("file missing"), and comes back when the file reappears;
/// - a file without a row is adopted as `recovered`; a file that belongs to a row under another path (moved by
///   hand, or moved by a stop the daemon did not live to record) is followed;
/// - none of the rows' files there, and no file at all: the storage is missing (an SD card or USB disk not
///   mounted). That is one condition — one log line, status and an event — and no row changes.
struct RowReconciler {
    package let data: DataDirectory
    package let library: Library
    package let thumbnail: ApplianceConfig.Thumbnail
    package let logger: Logger
    /// Rows created since are the running daemon's own (recording, or finished while this ran): left alone.
    package let ownRowsSince: Date
    /// Absent files logged by name; the rest are counted.
    static let namedInLog = 5

    /// `rescued`: files recovery just moved out of partial/.
    package func run(rescued: Set<String>, report: inout RecoveryReport) async throws -> (StorageStatus, [String]) {
        let recordingsDir = data.recordingsDir
        let prefix = data.recordingsDir + "/"
        async let walked = blocking { Set(FileWalker.files(under: recordingsDir, suffix: ".mp4")) }
        let rows = try await library.pathRows(missingFileReason: Recovery.missingFile, createdBefore: ownRowsSince)
        let files = try await walked
        var comeBack: [Int64] = []
        var absent: [Library.PathRow] = []
        var expected = 0
        var matched = 0
        for row in rows {
            let isThere = files.contains(row.path)
            if isThere { matched += 1 }
            if row.state != .failed, row.path.hasPrefix(prefix), !rescued.contains(row.path) { expected += 1 }
            if isThere, row.lostItsFile {
                comeBack.append(row.rowid)
            } else if !isThere, row.state != .failed {
                absent.append(row)
            }
        }
        // Rows expect files, and the folder holds none but what recovery just put there: the storage is missing.
        if expected > 0, files.isSubset(of: rescued) {
            let status = StorageStatus(
                state: .missing, recordingsDir: recordingsDir, missingFiles: expected,
                detail:
                    """
                    none of the \(expected) recorded files is in \(recordingsDir): is the disk that holds them \
                    mounted?
                    """
            )
            logger.error(
                "recordings storage missing: \(status.detail!); the clips are kept and come back when the files do")
            return (status, absent.prefix(16).map(\.path))
        }
        // Every file is some row's (the usual case) unless fewer rows matched than there are files.
        let orphans = matched >= files.count ? [] : files.subtracting(rows.map(\.path)).subtracting(rescued)
        try await restore(comeBack, report: &report)
        let followed = try await adopt(orphans, report: &report)
        try await markAbsent(absent, followed: followed, report: &report)
        return (StorageStatus(state: .ok, recordingsDir: recordingsDir), [])
    }

    /// Rows marked "file missing" whose file is back.
    private func restore(_ rowids: [Int64], report: inout RecoveryReport) async throws {
        let ids = try await library.markFilesBack(rowids: rowids)
        report.recovered += ids
        if !ids.isEmpty { logger.notice("\(ids.count) recording(s) whose files had gone missing are back") }
    }

    /// Rows whose file is gone (and that did not follow a file elsewhere): batches of one statement each, one log
    /// line.
    private func markAbsent(_ rows: [Library.PathRow], followed: Set<String>, report: inout RecoveryReport) async throws
    {
        guard !rows.isEmpty else { return }
        var rowids = rows.map(\.rowid)
        if !followed.isEmpty {
            let ids = try await library.ids(of: rowids)
            rowids = zip(rowids, ids).filter { !followed.contains($0.1) }.map(\.0)
        }
        let marked = try await library.markFilesMissing(
            rowids: rowids, interrupted: "\(Recovery.nothingRecorded): the daemon stopped before it created the file",
            lostPrefix: "\(Recovery.missingFile) at start-up: ")
        guard !marked.isEmpty else { return }
        report.failed += marked
        var named: [String] = []
        for id in marked.prefix(Self.namedInLog) {
            named.append("\(id) (\((try? await library.fetch(id: id))?.path ?? "?"))")
        }
        logger.warning(
            """
            \(marked.count) recording(s) have no file and are marked failed: \
            \(named.joined(separator: ", "))\(marked.count > Self.namedInLog ? ", …" : "")
            """
        )
    }

    /// Files in recordings/ that no row points to. Returns the ids of rows that followed their file.
    private func adopt(_ orphans: Set<String>, report: inout RecoveryReport) async throws -> Set<String> {
        var followed = Set<String>()
        for path in orphans.sorted() {
            let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension.lowercased()
            let id = Recovery.isRecordingID(stem) ? stem : UUID().uuidString.lowercased()
            let existing = try? await library.fetch(id: id)
            // A file this daemon recorded while the reconcile ran: its row follows it by itself.
            if let existing, existing.createdAt >= ownRowsSince { continue }
            if var row = existing {
                // The row exists under another path: its file was moved by hand, or a stop moved it and the daemon
                // died before completing the row. Follow the file.
                row.path = path
                let lostItsFile =
                    row.failureReason.map {
                        $0.hasPrefix(Recovery.missingFile) || $0.hasPrefix(Recovery.nothingRecorded)
                    } ?? false
                if row.state == .recording || (row.state == .failed && lostItsFile) {
                    row.failureReason = nil
                    row.state = .recovered
                    if row.durationMs == nil { await Recovery.measure(&row, thumbnail: thumbnail, data: data) }
                }
                let updated = row
                try await library.update(id: id) { $0 = updated }
                followed.insert(id)
            } else {
                let date = Recovery.fileDate(path)
                var row = Recording(
                    id: id, title: Timestamps.title(date), createdAt: date, path: path, state: .recovered)
                row.note = "adopted at start-up: the file had no database row"
                row.endedAt = Recovery.modificationDate(path)
                await Recovery.measure(&row, thumbnail: thumbnail, data: data)
                // Its last write ended it, so it began its duration before: a file copied in keeps its modification
                // time but gets a new birth time, which would put the start after the end (and off the timeline).
                if let end = row.endedAt, let ms = row.durationMs {
                    row.createdAt = end.addingTimeInterval(-Double(ms) / 1000)
                }
                try await library.insert(row)
            }
            report.adopted.append(id)
            logger.notice("adopted \(path) as recording \(id)")
        }
        return followed
    }
}
