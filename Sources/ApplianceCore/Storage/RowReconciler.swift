import ApplianceProtocol
import Foundation
import Logging

/// Matches the rows with the files in recordings/ at start-up, in batches (100,000 rows answer in well under a
/// second, files there or not):
/// - a row whose file is gone becomes `failed` ("file missing"), and comes back when the file reappears;
/// - a file without a row is adopted as `recovered`; a file that belongs to a row under another path (moved by
///   hand, or moved by a stop the daemon did not live to record) is followed;
/// - none of the rows' files there, and no file at all: the storage is missing (an SD card or USB disk not
///   mounted). That is one condition — one log line, status and an event — and no row changes.
struct RowReconciler {
    let data: DataDirectory
    let library: Library
    let thumbnail: ApplianceConfig.Thumbnail
    let logger: Logger
    /// Absent files logged by name; the rest are counted.
    static let namedInLog = 5

    /// `rescued`: files recovery just moved out of partial/.
    func run(rescued: Set<String>, report: inout RecoveryReport) async throws -> (StorageStatus, [String]) {
        let files = Set(FileWalker.files(under: data.recordingsDir, suffix: ".mp4"))
        let rows = try await library.allPaths()
        var referenced = Set<String>()
        var comeBack: [String] = []
        var absent: [(id: String, path: String, state: Recording.State)] = []
        var expected = 0, present = 0
        for row in rows {
            referenced.insert(row.path)
            let isThere = files.contains(row.path)
            if row.state != .failed, !rescued.contains(row.path), row.path.hasPrefix(data.recordingsDir + "/") {
                expected += 1
                if isThere { present += 1 }
            }
            if isThere, row.state == .failed, row.reason?.hasPrefix(Recovery.missingFile) == true {
                comeBack.append(row.id)
            } else if !isThere, row.state != .failed {
                absent.append((row.id, row.path, row.state))
            }
        }
        let orphans = files.subtracting(referenced).subtracting(rescued)
        if expected > 0, present == 0, orphans.isEmpty {
            let status = StorageStatus(state: .missing, recordingsDir: data.recordingsDir, missingFiles: expected,
                                       detail: "none of the \(expected) recorded files is in \(data.recordingsDir): is the disk that holds them mounted?")
            logger.error("recordings storage missing: \(status.detail!); the clips are kept and come back when the files do")
            return (status, absent.prefix(16).map(\.path))
        }
        try await restore(comeBack, report: &report)
        let followed = try await adopt(orphans, report: &report)
        try await markAbsent(absent.filter { !followed.contains($0.id) }, report: &report)
        return (StorageStatus(state: .ok, recordingsDir: data.recordingsDir), [])
    }

    /// Rows marked "file missing" whose file is back.
    private func restore(_ ids: [String], report: inout RecoveryReport) async throws {
        try await library.updateAll(ids: ids) { row in
            row.state = .recovered
            row.failureReason = nil
        }
        report.recovered += ids
        if !ids.isEmpty { logger.notice("\(ids.count) recording(s) whose files had gone missing are back") }
    }

    /// Rows whose file is gone: one transaction, one log line.
    private func markAbsent(_ rows: [(id: String, path: String, state: Recording.State)], report: inout RecoveryReport) async throws {
        guard !rows.isEmpty else { return }
        let interrupted = rows.filter { $0.state == .recording }.map(\.id)
        let lost = rows.filter { $0.state != .recording }.map(\.id)
        try await library.updateAll(ids: interrupted) { row in
            row.state = .failed
            row.failureReason = "\(Recovery.nothingRecorded): the daemon stopped before it created the file"
        }
        try await library.updateAll(ids: lost) { row in
            row.state = .failed
            row.failureReason = "\(Recovery.missingFile) at start-up: \(row.path)"
        }
        report.failed += rows.map(\.id)
        let named = rows.prefix(Self.namedInLog).map { "\($0.id) (\($0.path))" }.joined(separator: ", ")
        logger.warning("\(rows.count) recording(s) have no file and are marked failed: \(named)\(rows.count > Self.namedInLog ? ", …" : "")")
    }

    /// Files in recordings/ that no row points to. Returns the ids of rows that followed their file.
    private func adopt(_ orphans: Set<String>, report: inout RecoveryReport) async throws -> Set<String> {
        var followed = Set<String>()
        for path in orphans.sorted() {
            let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension.lowercased()
            let id = Recovery.isRecordingID(stem) ? stem : UUID().uuidString.lowercased()
            if var row = try? await library.fetch(id: id) {
                // The row exists under another path: its file was moved by hand, or a stop moved it and the daemon
                // died before completing the row. Follow the file.
                row.path = path
                let lostItsFile = row.failureReason.map { $0.hasPrefix(Recovery.missingFile) || $0.hasPrefix(Recovery.nothingRecorded) } ?? false
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
                var row = Recording(id: id, title: Timestamps.title(date), createdAt: date, path: path, state: .recovered)
                row.note = "adopted at start-up: the file had no database row"
                row.endedAt = Recovery.modificationDate(path)
                await Recovery.measure(&row, thumbnail: thumbnail, data: data)
                try await library.insert(row)
            }
            report.adopted.append(id)
            logger.notice("adopted \(path) as recording \(id)")
        }
        return followed
    }
}
