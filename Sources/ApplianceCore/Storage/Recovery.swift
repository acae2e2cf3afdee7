import Foundation
import GStreamerKit
import Logging

/// Start-up recovery: the database and the files are brought back into agreement, without deleting any media.
/// - every file left in partial/ (a crash) is measured, given a thumbnail, moved into recordings/ and its row
///   becomes `recovered` (created when missing);
/// - a row whose file is gone becomes `failed`, with the reason;
/// - a file in recordings/ without a row is adopted as `recovered`;
/// - a `failed` row whose file is back becomes `recovered` again.
public enum Recovery {
    public struct Report: Sendable, Codable {
        public var recovered: [String] = []
        public var failed: [String] = []
        public var adopted: [String] = []
        public var durationMs: Double = 0
    }

    /// How a row that lost its file is marked; only such rows come back when the file reappears.
    static let missingFile = "file missing"

    public static func run(data: DataDirectory, library: Library, thumbnail: ApplianceConfig.Thumbnail, logger: Logger) async throws -> Report {
        let started = ContinuousClock.now
        var report = Report()

        for partial in data.partialFiles() {
            let id = ((partial as NSString).lastPathComponent as NSString).deletingPathExtension.lowercased()
            let existing = try? await library.fetch(id: id)
            let date = existing?.createdAt ?? fileDate(partial)
            let destination = data.finalPath(id: id, date: date)
            var row = existing ?? Recording(id: id, title: Timestamps.title(date), createdAt: date, path: destination, state: .recovered)
            row.endedAt = row.endedAt ?? modificationDate(partial)
            do {
                try data.commit(partial, to: destination)
                row.path = destination
                measure(&row, thumbnail: thumbnail, data: data)
            } catch {
                row.path = partial
                row.state = .failed
                row.failureReason = "could not move the partial file: \(error)"
            }
            try await save(row, exists: existing != nil, library: library)
            report.recovered.append(id)
            logger.notice("recovered interrupted recording", metadata: [
                "id": "\(id)", "path": "\(row.path)", "state": "\(row.state.rawValue)",
                "duration_ms": "\(row.durationMs.map(String.init) ?? "?")",
            ])
        }

        let files = Set(FileWalker.files(under: data.recordingsDir, suffix: ".mp4"))
        var referenced = Set<String>()
        for (id, path, state, reason) in try await library.allPaths() {
            referenced.insert(path)
            let present = files.contains(path)
            if present, state == .failed, reason?.hasPrefix(missingFile) == true {
                try await library.update(id: id) { row in
                    row.state = .recovered
                    row.failureReason = nil
                }
                report.recovered.append(id)
            } else if !present, state != .failed {
                let reason = state == .recording
                    ? "\(missingFile): the daemon stopped while recording and left no file at \(path)"
                    : "\(missingFile) at start-up: \(path)"
                try await library.update(id: id) { row in
                    row.state = .failed
                    row.failureReason = reason
                }
                report.failed.append(id)
                logger.warning("recording \(id): \(reason)")
            }
        }

        for path in files.subtracting(referenced).sorted() {
            let stem = ((path as NSString).lastPathComponent as NSString).deletingPathExtension.lowercased()
            let id = isRecordingID(stem) ? stem : UUID().uuidString.lowercased()
            if let existing = try? await library.fetch(id: id) {
                // The row exists under another path (its file was moved by hand): follow the file.
                try await library.update(id: id) { row in
                    row.path = path
                    if existing.state == .failed, existing.failureReason?.hasPrefix(missingFile) == true {
                        row.state = .recovered
                        row.failureReason = nil
                    }
                }
            } else {
                let date = fileDate(path)
                var row = Recording(id: id, title: Timestamps.title(date), createdAt: date, path: path, state: .recovered)
                row.note = "adopted at start-up: the file had no database row"
                row.endedAt = modificationDate(path)
                measure(&row, thumbnail: thumbnail, data: data)
                try await library.insert(row)
            }
            report.adopted.append(id)
            logger.notice("adopted \(path) as recording \(id)")
        }
        report.durationMs = (ContinuousClock.now - started) / .milliseconds(1)
        return report
    }

    private static func save(_ row: Recording, exists: Bool, library: Library) async throws {
        if exists {
            try await library.update(id: row.id) { $0 = row }
        } else {
            try await library.insert(row)
        }
    }

    /// Fills what can be measured from the file: duration, codecs, size, and a thumbnail.
    static func measure(_ row: inout Recording, thumbnail: ApplianceConfig.Thumbnail, data: DataDirectory) {
        row.sizeBytes = (try? FileManager.default.attributesOfItem(atPath: row.path)[.size] as? NSNumber)?.int64Value
        do {
            let info = try Discoverer.inspect(path: row.path)
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
        if let frame = try? MediaInspector.inspect(path: row.path, offset: ClockTime(seconds: thumbnail.offsetS)).frame {
            let path = data.thumbnailPath(id: row.id)
            if (try? frame.writeJPEG(to: path, maxWidth: thumbnail.maxWidth, maxHeight: thumbnail.maxHeight, quality: thumbnail.quality)) != nil {
                row.thumbnail = path
            }
        }
    }

    static func isRecordingID(_ text: String) -> Bool {
        text.count == 36 && text.allSatisfy { $0.isHexDigit || $0 == "-" }
    }

    static func fileDate(_ path: String) -> Date {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return (attributes?[.creationDate] as? Date) ?? (attributes?[.modificationDate] as? Date) ?? Date()
    }

    static func modificationDate(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}
