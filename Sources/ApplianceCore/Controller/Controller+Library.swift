import Foundation
import GStreamerKit

/// What `list` answers: `items` newest first, and `total`.
public struct ListResult: Encodable, Sendable {
    public var items: [Recording]
    public var total: Int
    public var page: Int
    public var perPage: Int
    public var pages: Int
    /// Time spent inside the daemon answering (database and encoding excluded from nothing): for the benchmark.
    public var elapsedMs: Double
}

/// What `info` answers: every stored field, plus what the file itself says now.
public struct RecordingInfo: Encodable, Sendable {
    public struct Measured: Encodable, Sendable {
        public var durationMs: Int?
        public var width: Int?
        public var height: Int?
        public var framerate: Double?
        public var videoCodec: String?
        public var audioCodec: String?
        public var audioChannels: Int?
        public var audioSampleRate: Int?
        public var sizeBytes: Int64?
        public var error: String?
    }

    public var recording: Recording
    public var measured: Measured

    enum Keys: String, CodingKey { case measured }

    public func encode(to encoder: Encoder) throws {
        try recording.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(measured, forKey: .measured)
    }
}

public struct DeleteResult: Encodable, Sendable {
    public var id: String
    public var deletedFiles: [String]
}

extension Controller {
    public static let maxPerPage = 1000

    public func list(page: Int, perPage: Int) async throws -> ListResult {
        guard page >= 1 else { throw ControlError(.badRequest, "page must be 1 or more") }
        guard (1...Self.maxPerPage).contains(perPage) else { throw ControlError(.badRequest, "per_page must be between 1 and \(Self.maxPerPage)") }
        let started = ContinuousClock.now
        let result = try await library.page(page, perPage: perPage)
        let elapsed = (ContinuousClock.now - started) / .milliseconds(1)
        return ListResult(items: result.items, total: result.total, page: page, perPage: perPage,
                          pages: (result.total + perPage - 1) / perPage, elapsedMs: elapsed)
    }

    public func info(id: String) async throws -> RecordingInfo {
        let recording = try await resolve(id)
        var measured = RecordingInfo.Measured()
        measured.sizeBytes = (try? FileManager.default.attributesOfItem(atPath: recording.path)[.size] as? NSNumber)?.int64Value
        if recording.state == .recording {
            measured.error = "still recording"
        } else if measured.sizeBytes == nil {
            measured.error = "file missing: \(recording.path)"
        } else {
            let path = recording.path
            do {
                let media = try await blocking { try Discoverer.inspect(path: path) }
                measured.durationMs = media.duration.map { Int($0.milliseconds) }
                measured.width = media.video.first?.width
                measured.height = media.video.first?.height
                measured.framerate = media.video.first?.framerate
                measured.videoCodec = media.video.first?.codec
                measured.audioCodec = media.audio.first?.codec
                measured.audioChannels = media.audio.first?.channels
                measured.audioSampleRate = media.audio.first?.sampleRate
            } catch {
                measured.error = "\(error)"
            }
        }
        return RecordingInfo(recording: recording, measured: measured)
    }

    public func rename(id: String, title: String) async throws -> Recording {
        let title = try Self.validTitle(title)
        let recording = try await resolve(id)
        if case .recording(let active) = phase, active.session.id == recording.id {
            setActiveTitle(title)
        }
        let updated = try await library.update(id: recording.id) { $0.title = title }
        events.publish("renamed", ["id": updated.id, "title": updated.title])
        return updated
    }

    public func setLocked(id: String, locked: Bool) async throws -> Recording {
        let recording = try await resolve(id)
        let updated = try await library.update(id: recording.id) { $0.locked = locked }
        events.publish(locked ? "locked" : "unlocked", ["id": updated.id])
        if locked, config.backup.onlyLocked { await backup?.recordingFinished(updated.id) }
        return updated
    }

    /// Deletes file, thumbnail and row together. Refuses the clip being recorded, and locked clips unless forced.
    public func delete(id: String, force: Bool) async throws -> DeleteResult {
        let recording = try await resolve(id)
        if recording.state == .recording || activeRecordingID == recording.id {
            throw ControlError(.conflict, "recording \(recording.id) is in progress; stop it first")
        }
        if recording.locked, !force {
            throw ControlError(.conflict, "recording \(recording.id) is locked; unlock it or use --force")
        }
        var deleted: [String] = []
        for path in [recording.path, recording.thumbnail].compactMap({ $0 }) where FileManager.default.fileExists(atPath: path) {
            do {
                try FileManager.default.removeItem(atPath: path)
                deleted.append(path)
            } catch {
                throw ControlError(.internalError, "cannot delete \(path): \(DataDirectory.reason(error)); nothing else was removed")
            }
        }
        if let backup, recording.backupState != .none || recording.backupRemotePath != nil {
            await backup.recordingDeleted(recording)  // the remote copy goes too (queued, durable)
        }
        try await library.delete(id: recording.id)
        events.publish("deleted", ["id": recording.id])
        logger.info("deleted recording \(recording.id)", metadata: ["files": "\(deleted.count)"])
        return DeleteResult(id: recording.id, deletedFiles: deleted)
    }

    /// Full id or unique prefix → row, with `not_found` / `bad_request` errors.
    func resolve(_ id: String) async throws -> Recording {
        do {
            return try await library.resolve(id)
        } catch let error as Library.LibraryError {
            switch error {
            case .notFound: throw ControlError(.notFound, error.description)
            case .ambiguous, .invalidID: throw ControlError(.badRequest, error.description)
            case .storage: throw ControlError(.internalError, error.description)
            }
        }
    }

    /// Titles are free text (they never become file names) but not empty, not control characters, not huge.
    static func validTitle(_ title: String) throws -> String {
        let trimmed = title.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw ControlError(.badRequest, "title must not be empty") }
        guard trimmed.count <= 500 else { throw ControlError(.badRequest, "title longer than 500 characters") }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ControlError(.badRequest, "title must not contain control characters")
        }
        return trimmed
    }
}

extension Controller {
    public func backupStatus() async throws -> BackupUploader.Status {
        guard let backup else {
            return BackupUploader.Status(enabled: false, url: "", onlyLocked: false, bandwidthKbps: 0, paused: false,
                                         pauseReason: nil, counts: [:], current: nil, lastError: nil, nextRetryAt: nil)
        }
        return await backup.status()
    }

    public func backupRetry(id: String?) async throws -> [String: Int] {
        guard let backup else { throw ControlError(.unavailable, "backup is off ([backup] url is empty)") }
        var resolved: String?
        if let id { resolved = try await resolve(id).id }
        return ["requeued": try await backup.retry(recordingId: resolved)]
    }
}
