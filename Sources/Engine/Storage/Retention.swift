import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import MediaLibrary
import Settings

/// Keeps the clips within `[storage]`: deletes the oldest unlocked clips first (by age with `retention_days`,
/// for room with `max_used_gb` and `min_free_mb`), never a locked clip unless `on_full = "overwrite_oldest_locked"`,
/// never the clip being written (its row is still `recording`). With `keep_until_backed_up`, clips whose backup
/// is not done go last, each announced by a `retention_warning` first. When nothing it may delete is left and room
/// is still short, or locked clips take more than `max_locked_percent`, the recording stops (`on_full = "stop"`)
/// with a `storage_full` event. Every deletion is a `retention_deleted` event and a log line; the backup copy of
/// a deleted clip stays on the server.
package actor Retention {
    package let config: ApplianceConfig
    package let data: DataDirectory
    package let library: Library
    package let events: EventHub
    package let health: Health
    package let logger: Logger
    package let recorder: any RecordingInProgress
    /// Looks at the wall clock before ages are judged: a jump is handled (this boot's clips dated again) first.
    package let settleClock: @Sendable () async -> Void
    /// Set when a file could not be written: the next pass makes `headroom` free even below min_free_mb.
    private let headroomWanted = Locked(false)
    private var settings: ApplianceConfig.Storage { config.storage }
    private var keepUnbackedUp: Bool { settings.keepUntilBackedUp && config.backup.enabled }

    package init(
        config: ApplianceConfig, data: DataDirectory, library: Library, events: EventHub, health: Health,
        logger: Logger,
        recorder: any RecordingInProgress, settleClock: @escaping @Sendable () async -> Void = {}
    ) {
        (self.config, self.data, self.library, self.events, self.health, self.logger) = (
            config, data, library, events, health, logger
        )
        (self.recorder, self.settleClock) = (recorder, settleClock)
    }

    /// After a write failure (the disk filled up): ask the next pass for room to record again.
    package nonisolated func wantHeadroom() { headroomWanted.withLock { $0 = true } }

    /// Room to resume recording after the disk filled up: a tenth of the filesystem, between 1 MB and 256 MB,
    /// and never less than min_free_mb.
    static func headroom(filesystemBytes: Int64, minFreeMb: Int) -> Int64 {
        max(Int64(minFreeMb) * 1_000_000, min(256_000_000, max(1_000_000, filesystemBytes / 10)))
    }

    package struct PassReport: Sendable {
        package var deleted: [RetentionDeletion] = []
        package var full: String?
    }

    /// Passes run one at a time: an actor method that awaits may interleave with another call, and two passes
    /// measuring the same shortage would both delete for it.
    private var passRunning = false
    private var waitingPasses: [CheckedContinuation<Void, Never>] = []

    /// One pass: measure, delete what must go, stop the recording if room cannot be made.
    @discardableResult
    package func pass() async -> PassReport {
        while passRunning { await withCheckedContinuation { waitingPasses.append($0) } }
        passRunning = true
        defer {
            passRunning = false
            if !waitingPasses.isEmpty { waitingPasses.removeFirst().resume() }
        }
        var report = PassReport()
        // Not before the rows are known to match the files (the reconcile after start-up); with the storage
        // missing, the clips' files only look absent: nothing may be judged, let alone deleted.
        await health.untilReconciled()
        guard health.storage.state == .ok else { return report }
        let started = ContinuousClock.now
        do {
            if settings.retentionDays > 0 {
                await settleClock()
                try await deleteByAge(now: Date(), report: &report)
            }
            var capacity = try await measure()
            try await enforceLockedShare(&capacity, report: &report)
            try await makeRoom(&capacity, report: &report)
            var after = Self.adjusted(capacity, after: report.deleted, free: FileSystemSpace.available(at: data.root))
            after.lastPassMs = ((ContinuousClock.now - started) / .microseconds(100)).rounded() / 10
            after.lastPassDeleted = report.deleted.count
            health.capacity = after
        } catch is CancellationError {
            return report  // shutting down: the pass ends here, nothing is wrong
        } catch {
            logger.error("retention: \(error)")
            health.noteError("retention: \(error)")
        }
        if let full = report.full {
            await storageFull(full)
        } else {
            health.storageFull = nil
        }
        return report
    }

    // MARK: measuring

    /// Space used by clips, free space, the budget and the time until the oldest unlocked clip is overwritten.
    package func measure() async throws -> Capacity {
        let usage = try await library.usage()
        let partialBytes = data.partialFiles().reduce(Int64(0)) { $0 + (DataDirectory.fileSize($1) ?? 0) }
        let used = usage.bytes + partialBytes
        let free = FileSystemSpace.available(at: data.root) ?? 0
        let minFree = Int64(settings.minFreeMb) * 1_000_000
        var budget = used + max(0, free - minFree)
        if settings.maxUsedGb > 0 { budget = min(budget, Int64(settings.maxUsedGb * 1e9)) }
        let lockedPercent = budget > 0 ? Double(usage.lockedBytes) / Double(budget) * 100 : 0
        let rate = usage.recentBytesPerSecond
        var wraps: Double?
        if let rate, rate > 0, usage.unlockedCount > 0 {
            wraps = max(0, Double(budget - used) / rate)
            if settings.retentionDays > 0, let oldest = usage.oldestUnlocked {
                let byAge = oldest.addingTimeInterval(Double(settings.retentionDays) * 86_400).timeIntervalSinceNow
                wraps = min(wraps!, max(0, byAge))
            }
        }
        return Capacity(
            usedBytes: used, freeBytes: free, budgetBytes: budget, lockedBytes: usage.lockedBytes,
            lockedPercent: (lockedPercent * 10).rounded() / 10, bitrateKbps: rate.map { ($0 * 8 / 1000).rounded() },
            wrapsInS: wraps.map { $0.rounded() }, wrapsIn: wraps.map(Self.words))
    }

    /// The capacity measured at the start of a pass, less what the pass deleted (summing the table again would
    /// double the pass's cost at 100,000 rows).
    static func adjusted(_ capacity: Capacity, after deleted: [RetentionDeletion], free: Int64?) -> Capacity {
        var c = capacity
        let bytes = deleted.reduce(Int64(0)) { $0 + $1.sizeBytes }
        let lockedBytes = deleted.filter(\.locked).reduce(Int64(0)) { $0 + $1.sizeBytes }
        c.usedBytes -= bytes
        c.lockedBytes -= lockedBytes
        c.freeBytes = free ?? c.freeBytes + bytes
        c.lockedPercent = c.budgetBytes > 0 ? (Double(c.lockedBytes) / Double(c.budgetBytes) * 1000).rounded() / 10 : 0
        if let kbps = c.bitrateKbps, kbps > 0, c.wrapsInS != nil {
            let seconds = max(0, Double(c.budgetBytes - c.usedBytes) / (kbps * 1000 / 8)).rounded()
            c.wrapsInS = min(seconds, c.wrapsInS! + Double(bytes) / (kbps * 1000 / 8))
            c.wrapsIn = words(c.wrapsInS!)
        }
        return c
    }

    /// "6 h 12 min", "3 min", "45 s", "2 d 4 h".
    package static func words(_ seconds: Double) -> String {
        let s = Int(seconds)
        if s >= 86_400 { return "\(s / 86_400) d \(s % 86_400 / 3600) h" }
        if s >= 3600 { return "\(s / 3600) h \(s % 3600 / 60) min" }
        if s >= 60 { return "\(s / 60) min" }
        return "\(s) s"
    }

    // MARK: the rules

    /// Clips older than `retention_days`; those that cover an activity only once older than `event_keep_days` too.
    private func deleteByAge(now: Date, report: inout PassReport) async throws {
        let days = Double(settings.retentionDays)
        try await deleteByAge(hasEvent: false, cutoff: now.addingTimeInterval(-days * 86_400), report: &report)
        let eventDays = max(days, Double(settings.eventKeepDays))
        try await deleteByAge(hasEvent: true, cutoff: now.addingTimeInterval(-eventDays * 86_400), report: &report)
    }

    private func deleteByAge(hasEvent: Bool, cutoff: Date, report: inout PassReport) async throws {
        while true {
            let (rows, _) = try await library.oldest(
                locked: false, backedUp: nil, hasEvent: hasEvent, olderThan: cutoff, after: nil, limit: 100)
            guard !rows.isEmpty else { return }
            var removed = 0
            for row in rows where try await delete(row, reason: .age, report: &report) { removed += 1 }
            guard removed > 0 else { return }  // every one was kept (locked or gone meanwhile): nothing more to do now
        }
    }

    private func enforceLockedShare(_ capacity: inout Capacity, report: inout PassReport) async throws {
        let cap = Int64(Double(capacity.budgetBytes) * settings.maxLockedPercent / 100)
        guard settings.maxLockedPercent < 100, capacity.lockedBytes > cap else { return }
        guard settings.onFull == .overwriteOldestLocked else {
            report.full =
                """
                locked clips take \(String(format: "%.1f", capacity.lockedPercent)) % of the space, over \
                max_locked_percent = \(settings.maxLockedPercent)
                """
            return
        }
        var cursor: (Int64, Int64)?
        while capacity.lockedBytes > cap {
            let (rows, next) = try await library.oldest(locked: true, backedUp: nil, after: cursor, limit: 16)
            guard !rows.isEmpty else { return }
            cursor = next
            for row in rows where capacity.lockedBytes > cap {
                guard try await delete(row, reason: .lockedShare, report: &report) else { continue }
                capacity.lockedBytes -= row.sizeBytes
                capacity.usedBytes -= row.sizeBytes
            }
        }
    }

    /// Deletes oldest-first until clips fit `max_used_gb` and the filesystem keeps `min_free_mb` free.
    private func makeRoom(_ capacity: inout Capacity, report: inout PassReport) async throws {
        let floor = Int64(settings.minFreeMb) * 1_000_000
        var minFree = floor
        let afterWriteFailure = headroomWanted.withLock { wanted in
            defer { wanted = false }
            return wanted
        }
        if afterWriteFailure {
            minFree = Self.headroom(
                filesystemBytes: FileSystemSpace.total(at: data.root) ?? 0, minFreeMb: settings.minFreeMb)
            logger.notice("retention: making \(minFree / 1_000_000) MB free after a write failure")
        }
        let maxUsed = settings.maxUsedGb > 0 ? Int64(settings.maxUsedGb * 1e9) : Int64.max
        var need = max(0, capacity.usedBytes - maxUsed, minFree - capacity.freeBytes)
        guard need > 0 else { return }
        let needBefore = need
        defer {
            // The headroom after a write failure is a wish: when it cannot be met but the rules are (max_used_gb,
            // min_free_mb) and at least the smallest headroom (1 MB) is free, recording goes on (a small card whose
            // only other clip was smaller than a tenth of it: a write failure, then "storage full", for ever).
            let freed = needBefore - need
            if afterWriteFailure, report.full != nil, capacity.usedBytes - freed <= maxUsed,
                capacity.freeBytes + freed >= max(floor, Self.headroom(filesystemBytes: 0, minFreeMb: 0))
            {
                logger.notice(
                    """
                    retention: made \(freed / 1_000_000) MB free after a write failure (\(minFree / 1_000_000) MB \
                    wanted; nothing else may be deleted): recording goes on
                    """
                )
                report.full = nil
            }
        }
        let reason: RetentionDeletion.Reason = capacity.usedBytes > maxUsed ? .maxUsed : .minFree
        // In each tier, every channel's older clips go before any channel's last hour: a channel that fills the
        // disk faster cannot take another's last hour before its own older clips.
        for tier in roomTiers {
            for inLastHour in [false, true] {
                try await makeRoom(in: tier, inLastHour: inLastHour, need: &need, reason: reason, report: &report)
            }
            if need <= 0 { return }
        }
        let mb = (need + 999_999) / 1_000_000
        report.full =
            capacity.usedBytes > maxUsed
            ? "clips take more than max_used_gb = \(settings.maxUsedGb) and only locked clips are left (\(mb) MB short)"
            : "free space is under min_free_mb = \(settings.minFreeMb) and no clip may be deleted (\(mb) MB short)"
    }

    /// Deletes the tier's clips (those in or out of their channel's last hour), oldest first, while room is needed.
    private func makeRoom(
        in tier: (locked: Bool, backedUp: Bool?, weight: Library.EventWeight?), inLastHour: Bool, need: inout Int64,
        reason: RetentionDeletion.Reason, report: inout PassReport
    ) async throws {
        var cursor: (Int64, Int64)?
        while need > 0 {
            let (rows, next) = try await library.oldest(
                locked: tier.locked, backedUp: tier.backedUp, weight: tier.weight, inLastHour: inLastHour,
                after: cursor, limit: 16)
            guard !rows.isEmpty else { return }
            cursor = next
            for row in rows where need > 0 {
                if tier.backedUp == false {
                    let warning = deletion(row, reason: reason)
                    events.publish(.retentionWarning(warning))
                    logger.warning(
                        """
                        retention: deleting \(row.id), which is not backed up yet (keep_until_backed_up; \
                        nothing else is left to delete)
                        """
                    )
                }
                guard try await delete(row, reason: tier.locked ? .lockedShare : reason, report: &report) else {
                    continue
                }
                need -= row.sizeBytes
            }
        }
    }

    /// The order in which clips make room: unlocked clips that cover no activity, then unlocked ones that cover only
    /// activity, then those that cover a tracked object (backed-up ones first in each when keep_until_backed_up), then
    /// locked ones if allowed.
    private var roomTiers: [(locked: Bool, backedUp: Bool?, weight: Library.EventWeight?)] {
        let backup: [Bool?] = keepUnbackedUp ? [true, false] : [nil]
        var tiers = Library.EventWeight.allCases.flatMap { weight in
            backup.map { (locked: false, backedUp: $0, weight: Optional(weight)) }
        }
        if settings.onFull == .overwriteOldestLocked { tiers.append((true, nil, nil)) }
        return tiers
    }

    private func deletion(_ row: Library.RetentionCandidate, reason: RetentionDeletion.Reason) -> RetentionDeletion {
        RetentionDeletion(
            id: row.id, path: row.path, createdAt: row.createdAt, sizeBytes: row.sizeBytes, reason: reason,
            locked: row.locked, backedUp: row.backedUp)
    }

    /// Removes the clip through ClipRemoval (file, thumbnail and row; the remote copy stays: it is the backup), read
    /// again first so that a clip locked or deleted since it was chosen is judged as it is now. False: it stayed.
    private func delete(_ row: Library.RetentionCandidate, reason: RetentionDeletion.Reason, report: inout PassReport)
        async throws -> Bool
    {
        guard let recording = try await library.fetch(id: row.id) else { return false }
        let removal = ClipRemoval(
            library: library, scrubPath: data.scrubPath, activeID: { [recorder] in await recorder.activeID },
            archive: nil, events: events, logger: logger)
        do {
            try await removal.remove(recording, cause: .retention(reason))
        } catch let error as ApplianceError where error.code == .conflict {
            logger.notice("retention: kept \(row.id): \(error.message)")
            return false
        }
        report.deleted.append(RetentionDeletion(recording, reason: reason))
        return true
    }

    private func storageFull(_ reason: String) async {
        let first = health.storageFull == nil
        health.storageFull = reason
        let recording = await recorder.isRecording
        if recording, settings.onFull == .stop {
            logger.error("storage full: \(reason); stopping the recording")
            await recorder.stopForFullStorage()
        } else if first {
            logger.error("storage full: \(reason)")
        }
        if first || recording {
            let capacity = (try? await measure()) ?? health.capacity
            if let capacity {
                events.publish(
                    .storageFull(StorageFull(reason: reason, capacity: capacity, stoppedRecording: recording)))
            }
        }
    }
}
