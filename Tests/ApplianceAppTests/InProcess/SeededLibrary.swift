import ApplianceBase
import ApplianceProtocol
import Foundation
import MediaLibrary
import XCTest

@testable import ApplianceApp

/// A library of real (zero-filled) clip files seeded before an appliance opens it: for retention and activity tests.
enum SeededLibrary {
    /// `count` 100 kB clips of one second, `spacingS` apart (a minute), oldest first, the newest `spacingS` ago
    /// (`daysOld` earlier), each of `channel` (none: from before channels);
    /// `locked` and `backedUp` pick which are; each of `marked` gets an external activity (label "seeded n") inside it,
    /// each of `people` a person (an object activity).
    /// Returns their ids, oldest first.
    @discardableResult
    static func seed(
        in directory: URL, count: Int = 10, daysOld: Double = 0, locked: Set<Int> = [], backedUp: Set<Int> = [],
        marked: Set<Int> = [], people: Set<Int> = [], spacingS: Double = 60, channel: String? = nil
    ) throws -> [String] {
        let data = try DataDirectory(path: directory.appendingPathComponent("data").path)
        let library = try Library(path: data.root + "/appliance.sqlite")
        var rows: [Recording] = []
        for n in 0..<count {
            let created = Date(timeIntervalSinceNow: -daysOld * 86_400 - Double(count - n) * spacingS)
            let id = UUID().uuidString.lowercased()
            let path = data.finalPath(id: id, date: created)
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(count: 100_000)))
            var row = Recording(id: id, title: "clip \(n)", createdAt: created, path: path, state: .complete)
            (row.startedAt, row.endedAt) = (created, created.addingTimeInterval(1))
            row.sizeBytes = 100_000
            row.durationMs = 1000
            row.locked = locked.contains(n)
            row.backupState = backedUp.contains(n) ? .done : .pending
            row.channel = channel
            rows.append(row)
        }
        let seeded = rows
        try awaitBlocking {
            try await library.insertBatch(seeded)
            for n in marked.sorted() {
                let at = seeded[n].createdAt.addingTimeInterval(0.5)
                _ = try await library.insertActivity(
                    Activity(id: 0, kind: .external, label: "seeded \(n)", startedAt: at, endedAt: at))
                try await library.markCovering(from: at, to: at, longest: 60)
            }
            for n in people.sorted() {
                let at = seeded[n].createdAt.addingTimeInterval(0.5)
                _ = try await library.insertActivity(
                    Activity(id: 0, kind: .object, label: "person", startedAt: at, endedAt: at, peak: 0.9))
                try await library.markCovering(from: at, to: at, longest: 60, weight: .object)
            }
        }
        return rows.map(\.id)
    }

    /// The seeded clips (by index) that still have a row.
    static func remaining(_ appliance: TestAppliance, of ids: [String]) async throws -> [Int] {
        var kept: [Int] = []
        for (n, id) in ids.enumerated()
        where try await appliance.appliance.dispatcher.clips.library.fetch(id: id) != nil { kept.append(n) }
        return kept
    }

    /// Runs async work to the end from synchronous code (seeding happens before any appliance runs).
    private static func awaitBlocking(_ work: @escaping @Sendable () async throws -> Void) throws {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var failure: Error?
        Task {
            do { try await work() } catch { failure = error }
            done.signal()
        }
        done.wait()
        if let failure { throw failure }
    }
}
