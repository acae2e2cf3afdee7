import ApplianceBase
import ApplianceProtocol
import Engine
import Foundation
import Settings
import XCTest

@testable import ApplianceApp

/// Retention's rules on a seeded library of real files: which clips go, in what order, and what never goes.
final class RetentionPolicyTests: XCTestCase {
    private var directory: URL!

    override func setUp() async throws { directory = try TestAppliance.makeDirectory() }
    override func tearDown() async throws { try? FileManager.default.removeItem(at: directory) }

    @discardableResult
    private func seed(count: Int = 10, daysOld: Double = 0, locked: Set<Int> = [], backedUp: Set<Int> = []) throws
        -> [String]
    {
        try SeededLibrary.seed(in: directory, count: count, daysOld: daysOld, locked: locked, backedUp: backedUp)
    }

    private func remaining(_ appliance: TestAppliance, of ids: [String]) async throws -> [Int] {
        try await SeededLibrary.remaining(appliance, of: ids)
    }

    func testOldestUnlockedGoFirstAndLockedNever() async throws {
        let ids = try seed(locked: [0, 3])
        let appliance = try await TestAppliance(directory: directory) { config in
            config.storage.maxUsedGb = 0.0006  // 600 kB of 1 MB: 400 kB must go
            config.storage.minFreeMb = 0
            config.storage.maxLockedPercent = 100
        }
        let events = appliance.events
        await appliance.appliance.dispatcher.retention.pass()
        let kept = try await remaining(appliance, of: ids)
        XCTAssertEqual(kept, [0, 3, 6, 7, 8, 9])
        let deleted = await events.first { event -> RetentionDeletion? in
            if case .retentionDeleted(let d) = event, d.id == ids[5] { return d }
            return nil
        }
        XCTAssertEqual(deleted?.reason, .maxUsed)
        XCTAssertFalse(FileManager.default.fileExists(atPath: deleted?.path ?? "/"))
        let status = try await appliance.perform(.status)
        guard case .status(let report) = status else { return XCTFail() }
        XCTAssertNil(report.storageFull)
        XCTAssertEqual(report.capacity?.lockedBytes, 200_000)
        try await appliance.stop()
    }

    /// Room is made from clips that cover nothing, then from those that cover only activity (motion, a mark), and
    /// only then from those that cover a tracked object: a person outlasts a branch in the wind.
    func testClipsWithObjectsAreKeptLongestWhenRoomIsNeeded() async throws {
        let ids = try SeededLibrary.seed(in: directory, count: 6, marked: [0, 1], people: [2, 3])
        let appliance = try await TestAppliance(directory: directory) { config in
            config.storage.maxUsedGb = 0.0003  // 600 kB of clips, 300 kB allowed: three must go
            config.storage.minFreeMb = 0
        }
        await appliance.appliance.dispatcher.retention.pass()
        let kept = try await remaining(appliance, of: ids)
        XCTAssertEqual(kept, [1, 2, 3], "the plain clips, then the oldest with activity only")
        try await appliance.stop()
    }

    func testNotBackedUpClipsGoLastWithAWarning() async throws {
        // Backup "on" against a closed port: uploads fail and retry; rows keep their seeded backup state.
        let ids = try seed(backedUp: [4, 5, 6, 7, 8, 9])
        let appliance = try await TestAppliance(directory: directory) { config in
            config.storage.maxUsedGb = 0.0003  // 700 kB must go: six backed-up clips, then one that is not
            config.storage.minFreeMb = 0
            config.storage.keepUntilBackedUp = true
            config.backup.url = "http://127.0.0.1:9/appliance"
            config.backup.retryBaseS = 3600
        }
        let events = appliance.events
        await appliance.appliance.dispatcher.retention.pass()
        let keptIdsAppliance = try await remaining(appliance, of: ids)
        XCTAssertEqual(keptIdsAppliance, [1, 2, 3])
        let warned = await events.first { event -> String? in
            if case .retentionWarning(let d) = event { return d.id }
            return nil
        }
        XCTAssertEqual(warned, ids[0], "the one clip not backed up that had to go was announced")
        try await appliance.stop()
    }

    /// Two channels: the rear one records every 700 s, the front one recorded three clips two hours ago. Room is
    /// made from the rear's clips older than its last hour before the front's last hour is touched (oldest first
    /// would have taken all three front clips).
    func testAChannelThatFillsFasterDoesNotTakeAnotherChannelsLastHourFirst() async throws {
        let front = try SeededLibrary.seed(
            in: directory, count: 3, daysOld: 2.0 / 24, spacingS: 600, channel: "front")
        // Its newest 11 min 40 s ago, its last hour back to 71 min 40 s ago: clips 0…3 are older.
        let rear = try SeededLibrary.seed(in: directory, count: 10, spacingS: 700, channel: "rear")
        let appliance = try await TestAppliance(directory: directory) { config in
            config.storage.maxUsedGb = 0.0008  // 1.3 MB of clips, 800 kB allowed: five must go
            config.storage.minFreeMb = 0
        }
        await appliance.appliance.dispatcher.retention.pass()
        let keptRear = try await remaining(appliance, of: rear)
        let keptFront = try await remaining(appliance, of: front)
        XCTAssertEqual(keptRear, [4, 5, 6, 7, 8, 9], "the rear's clips older than its last hour went first")
        XCTAssertEqual(keptFront, [1, 2], "then the oldest clip of any channel's last hour")
        try await appliance.stop()
    }

    func testAgeDeletesOldUnlockedClipsOnly() async throws {
        let old = try seed(count: 3, daysOld: 8, locked: [1])
        let fresh = try seed(count: 2)
        let appliance = try await TestAppliance(directory: directory) { config in
            config.storage.retentionDays = 7
            config.storage.minFreeMb = 0
            config.storage.maxLockedPercent = 100
        }
        await appliance.appliance.dispatcher.retention.pass()
        let keptOldAppliance = try await remaining(appliance, of: old)
        XCTAssertEqual(keptOldAppliance, [1])
        let keptFreshAppliance = try await remaining(appliance, of: fresh)
        XCTAssertEqual(keptFreshAppliance, [0, 1])
        try await appliance.stop()
    }

    func testLockedShareOverTheCap() async throws {
        let ids = try seed(locked: [0, 1, 2, 3, 4])
        // Locked clips take 500 kB of a 1 MB budget; the cap is 30 %.
        func appliance(_ onFull: ApplianceConfig.Storage.OnFull) async throws -> TestAppliance {
            try await TestAppliance(directory: directory) { config in
                config.storage.maxUsedGb = 0.001
                config.storage.minFreeMb = 0
                config.storage.maxLockedPercent = 30
                config.storage.onFull = onFull
            }
        }
        let stop = try await appliance(.stop)
        await stop.appliance.dispatcher.retention.pass()
        let keptIdsStop = try await remaining(stop, of: ids)
        XCTAssertEqual(keptIdsStop.count, 10, "on_full = stop deletes no locked clip")
        guard case .status(let report) = try await stop.perform(.status) else { return XCTFail() }
        XCTAssertTrue(report.storageFull?.contains("max_locked_percent") == true, report.storageFull ?? "nil")
        try await stop.stop()

        let overwrite = try await appliance(.overwriteOldestLocked)
        await overwrite.appliance.dispatcher.retention.pass()
        let keptIdsOverwrite = try await remaining(overwrite, of: ids)
        XCTAssertEqual(keptIdsOverwrite, [2, 3, 4, 5, 6, 7, 8, 9], "the two oldest locked clips went")
        guard case .status(let after) = try await overwrite.perform(.status) else { return XCTFail() }
        XCTAssertNil(after.storageFull)
        try await overwrite.stop()
    }

    func testWrapTimeInWords() {
        XCTAssertEqual(Retention.words(6 * 3600 + 12 * 60 + 5), "6 h 12 min")
        XCTAssertEqual(Retention.words(185), "3 min")
        XCTAssertEqual(Retention.words(45), "45 s")
        XCTAssertEqual(Retention.words(2 * 86_400 + 4 * 3600), "2 d 4 h")
    }
}
