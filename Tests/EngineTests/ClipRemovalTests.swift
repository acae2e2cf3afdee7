import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import MediaLibrary
import XCTest

@testable import Engine

/// The one clip-removal path's rules, for both causes, on an in-memory library and real files in a temp folder.
/// (The remote copy a command also removes is covered end to end in BackupTests, against a real WebDAV server.)
final class ClipRemovalTests: XCTestCase {
    private var directory: URL!
    private var library: Library!
    private let events = EventHub()

    override func setUp() async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "removal-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        library = try Library.inMemory()
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: directory)
    }

    private func removal(active: String? = nil) -> ClipRemoval {
        let folder = directory.path
        return ClipRemoval(
            library: library, scrubPath: { "\(folder)/\($0).scrub" }, activeID: { active }, archive: nil,
            events: events,
            logger: Logger(label: "test"))
    }

    /// A finished clip with a media file, a thumbnail and scrubbing previews on disk.
    private func clip(_ n: Int, locked: Bool = false, state: Recording.State = .complete) async throws -> Recording {
        let id = String(format: "%08x-0000-4000-8000-%012x", n, n)
        let path = directory.appendingPathComponent("\(id).mp4").path
        let thumbnail = directory.appendingPathComponent("\(id).jpg").path
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(repeating: 1, count: 1000)))
        XCTAssertTrue(FileManager.default.createFile(atPath: thumbnail, contents: Data(repeating: 2, count: 100)))
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: directory.appendingPathComponent("\(id).scrub").path, contents: Data(repeating: 3, count: 50)))
        var recording = Recording(
            id: id, title: "clip \(n)", createdAt: Date(timeIntervalSinceNow: Double(-n)), path: path, state: state)
        (recording.thumbnail, recording.locked, recording.sizeBytes) = (thumbnail, locked, 1000)
        try await library.insert(recording)
        return recording
    }

    private func exists(_ recording: Recording) async throws -> (file: Bool, thumbnail: Bool, row: Bool) {
        (
            FileManager.default.fileExists(atPath: recording.path),
            FileManager.default.fileExists(atPath: recording.thumbnail ?? ""),
            try await library.fetch(id: recording.id) != nil
        )
    }

    private func assertRefused(
        _ recording: Recording, _ cause: ClipRemoval.Cause, active: String? = nil, saying text: String,
        line: UInt = #line
    ) async throws {
        do {
            try await removal(active: active).remove(recording, cause: cause)
            XCTFail("removed \(recording.id) for \(cause)", line: line)
        } catch let error as ApplianceError {
            XCTAssertEqual(error.code, .conflict, line: line)
            XCTAssertTrue(error.message.contains(text), error.message, line: line)
        }
        let left = try await exists(recording)
        XCTAssertTrue(left.file && left.thumbnail && left.row, "a refused removal touched \(left)", line: line)
    }

    private func nextEvent(_ subscription: EventHub.Subscription) async -> ApplianceEvent? {
        var iterator = subscription.events.makeAsyncIterator()
        return await iterator.next()?.event
    }

    func testACommandRemovesFileThumbnailPreviewsAndRowAndSaysDeleted() async throws {
        let recording = try await clip(1)
        let subscription = events.subscribe()
        let removed = try await removal().remove(recording, cause: .command(force: false))
        XCTAssertEqual(
            removed,
            [recording.path, recording.thumbnail!, directory.appendingPathComponent("\(recording.id).scrub").path])
        let left = try await exists(recording)
        XCTAssertFalse(left.file || left.thumbnail || left.row)
        let event = await nextEvent(subscription)
        XCTAssertEqual(event, .deleted(ClipEvent(id: recording.id)))
    }

    func testALockedClipGoesOnlyWhenForcedOrForTheLockedShare() async throws {
        let (first, second, third) = (
            try await clip(1, locked: true), try await clip(2, locked: true), try await clip(3, locked: true)
        )
        try await assertRefused(first, .command(force: false), saying: "is locked; unlock it or use --force")
        try await assertRefused(first, .retention(.maxUsed), saying: "was locked after retention chose it")
        try await assertRefused(first, .retention(.age), saying: "was locked after retention chose it")
        try await removal().remove(first, cause: .command(force: true))
        try await removal().remove(second, cause: .retention(.lockedShare))
        for gone in [first, second] {
            let left = try await exists(gone)
            XCTAssertFalse(left.file || left.thumbnail || left.row)
        }
        let kept = try await exists(third)
        XCTAssertTrue(kept.file && kept.row)
    }

    func testTheClipBeingRecordedNeverGoesForAnyCause() async throws {
        let writing = try await clip(1, state: .recording)
        let activeRow = try await clip(2)
        for cause: ClipRemoval.Cause in [.command(force: true), .retention(.minFree), .retention(.lockedShare)] {
            try await assertRefused(writing, cause, saying: "is in progress; stop it first")
            try await assertRefused(activeRow, cause, active: activeRow.id, saying: "is in progress; stop it first")
        }
    }

    func testRetentionAnnouncesItsReasonAndAFileAlreadyGoneIsNoError() async throws {
        let recording = try await clip(1)
        try FileManager.default.removeItem(atPath: recording.path)
        // a clip without previews
        try FileManager.default.removeItem(atPath: directory.appendingPathComponent("\(recording.id).scrub").path)
        let subscription = events.subscribe()
        let removed = try await removal().remove(recording, cause: .retention(.age))
        XCTAssertEqual(removed, [recording.thumbnail!], "only what was there is reported")
        let row = try await library.fetch(id: recording.id)
        XCTAssertNil(row)
        let event = await nextEvent(subscription)
        XCTAssertEqual(
            event,
            .retentionDeleted(
                RetentionDeletion(
                    id: recording.id, path: recording.path, createdAt: recording.createdAt,
                    sizeBytes: 1000, reason: .age, locked: false, backedUp: false)))
    }

    func testAFileThatCannotBeRemovedKeepsTheRow() async throws {
        var recording = try await clip(1)
        // A path under a regular file: removing it fails with ENOTDIR, not "no such file".
        let unremovable = recording.path + "/inside.mp4"
        recording.path = unremovable
        try await library.update(id: recording.id) { $0.path = unremovable }
        do {
            try await removal().remove(recording, cause: .command(force: false))
            XCTFail("removed a clip whose file could not be deleted")
        } catch let error as ApplianceError {
            XCTAssertEqual(error.code, .internalError)
            XCTAssertTrue(error.message.contains("nothing else was removed"), error.message)
        }
        let row = try await library.fetch(id: recording.id)
        XCTAssertNotNil(row)
        XCTAssertTrue(FileManager.default.fileExists(atPath: recording.thumbnail!))
    }
}
