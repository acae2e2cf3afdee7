import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Logging
import MediaLibrary
import Settings

/// The recordings library as commands: list, info, rename, lock, unlock, delete. The rows are the Library's; the
/// clip being recorded is the recorder's, so renaming it tells the recorder, and deleting it is refused.
package struct Clips: Sendable {
    package let config: ApplianceConfig
    package let data: DataDirectory
    package let library: Library
    package let events: EventHub
    package let logger: Logger
    package let recorder: Recorder
    /// The other channels' recorders (`[[channel]]` tables after the first): a rename or a protect reaches the clip
    /// each of them is writing too.
    package let otherRecorders: [Recorder]
    /// Every channel's recorder, the first first.
    var recorders: [Recorder] { [recorder] + otherRecorders }
    package let archive: (any RecordingArchive)?
    /// Every channel's name, the first first (`config` is the first channel's view: it names that one alone).
    package let channelNames: [String]

    package init(
        config: ApplianceConfig, data: DataDirectory, library: Library, events: EventHub, logger: Logger,
        recorder: Recorder, otherRecorders: [Recorder] = [], archive: (any RecordingArchive)?,
        channelNames: [String]? = nil
    ) {
        self.config = config
        self.channelNames = channelNames ?? config.channels.map(\.name)
        self.data = data
        self.library = library
        self.events = events
        self.logger = logger
        self.recorder = recorder
        self.otherRecorders = otherRecorders
        self.archive = archive
    }

    package enum ListView: Sendable { case clips, grouped, segments(of: String), filtered(ListFilter) }

    package func list(page: Int, perPage: Int, view: ListView = .clips) async throws -> ListResult {
        guard Command.pages.contains(page) else {
            throw ApplianceError(.badRequest, "page must be between 1 and \(Command.pages.upperBound)")
        }
        guard Command.perPageRange.contains(perPage) else {
            throw ApplianceError(.badRequest, "per_page must be between 1 and \(Command.perPageRange.upperBound)")
        }
        let started = ContinuousClock.now
        let result =
            switch view {
            case .clips: try await library.page(page, perPage: perPage)
            case .grouped: try await library.groupedPage(page, perPage: perPage)
            case .segments(let id):
                try await library.segmentPage(group: try await groupID(id), page: page, perPage: perPage)
            case .filtered(let filter):
                try await library.filteredPage(
                    filter, firstChannel: config.channels.first?.name, page: page, perPage: perPage)
            }
        let elapsed = (ContinuousClock.now - started) / .milliseconds(1)
        return ListResult(
            items: result.items, total: result.total, page: page, perPage: perPage,
            pages: (result.total + perPage - 1) / perPage, elapsedMs: elapsed)
    }

    package func info(id: String) async throws -> RecordingInfo {
        let recording = try await resolve(id)
        var measured = RecordingInfo.Measured()
        measured.sizeBytes = DataDirectory.fileSize(recording.path)
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

    package func rename(id: String, title: String) async throws -> Recording {
        let title = try TitleRules.valid(title)
        let recording = try await resolve(id)
        for recorder in recorders { await recorder.retitle(id: recording.id, title: title) }
        let updated = try await library.update(id: recording.id) { $0.title = title }
        events.publish(.renamed(Renamed(id: updated.id, title: updated.title)))
        return updated
    }

    package func setLocked(id: String, locked: Bool) async throws -> Recording {
        let recording = try await resolve(id)
        let updated = try await library.update(id: recording.id) { row in
            row.locked = locked
            row.lockReason = locked ? "user" : nil
        }
        events.publish(locked ? .locked(ClipEvent(id: updated.id)) : .unlocked(ClipEvent(id: updated.id)))
        if locked, config.backup.onlyLocked { await archive?.recordingFinished(updated.id) }
        return updated
    }

    /// Deletes file, thumbnail, row and remote copy (ClipRemoval's rules: never the clip being recorded, a locked
    /// clip only when forced).
    package func delete(id: String, force: Bool) async throws -> DeleteResult {
        let recording = try await resolve(id)
        let removal = ClipRemoval(
            library: library, scrubPath: data.scrubPath, activeID: { [recorder] in await recorder.activeID },
            archive: archive, events: events, logger: logger)
        let deleted = try await removal.remove(recording, cause: .command(force: force))
        return DeleteResult(id: recording.id, deletedFiles: deleted)
    }

    /// A loop recording's group id from the id (or a unique prefix) of the group or any of its segments.
    package func groupID(_ id: String) async throws -> String {
        let row = try await resolve(id)
        guard let group = row.group else {
            throw ApplianceError(.badRequest, "recording \(row.id) is not part of a loop recording")
        }
        return group
    }

    /// Full id or unique prefix → row, with `not_found` / `bad_request` errors.
    package func resolve(_ id: String) async throws -> Recording {
        do {
            return try await library.resolve(id)
        } catch let error as Library.LibraryError {
            switch error {
            case .notFound: throw ApplianceError(.notFound, error.description)
            case .ambiguous, .invalidID: throw ApplianceError(.badRequest, error.description)
            case .storage: throw ApplianceError(.internalError, error.description)
            }
        }
    }
}
