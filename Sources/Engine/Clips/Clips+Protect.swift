import ApplianceBase
import ApplianceProtocol
import Foundation

/// `protect`: the dashcam's event lock (and a shutter's long press). Locks every clip that overlaps
/// [now − before, now + after] with the reason "event"; while recording, segments that start inside the window
/// are locked as they begin, in every channel. Segments of that window that retention already deleted are reported
/// by number.
extension Clips {
    package func protect(before: Double, after: Double) async throws -> ProtectResult {
        let now = Date()
        return try await protect(from: now.addingTimeInterval(-before), to: now.addingTimeInterval(after))
    }

    /// Locks every clip that overlaps [from, to]; while recording and `to` is still ahead, segments that start
    /// before it are locked as they begin.
    package func protect(from: Date, to: Date) async throws -> ProtectResult {
        let longest = RecordingBin.longestFileS(config) + 60
        let rows = try await library.overlapping(from: from, to: to, longest: longest)
        let ids = rows.map(\.id)
        try await library.updateAll(ids: ids) { row in
            if !row.locked { (row.locked, row.lockReason) = (true, "event") }
        }
        for row in rows where !row.locked { events.publish(.locked(ClipEvent(id: row.id))) }
        if config.backup.onlyLocked, let archive {
            for row in rows where row.state != .recording { await archive.recordingFinished(row.id) }
        }
        var pending = false
        if to > Date() {
            for recorder in recorders {
                if await recorder.protect(until: to) { pending = true }
            }
        }
        let deleted = try await deletedSegments(in: rows, from: from)
        logger.notice(
            "protect: locked \(ids.count) clip(s)",
            metadata: [
                "from": "\(from)", "to": "\(to)", "already_deleted": "\(deleted.count)",
            ])
        return ProtectResult(from: from, to: to, locked: ids, alreadyDeleted: deleted, pendingUntil: pending ? to : nil)
    }

    /// For each loop recording in the window: the segment numbers missing between its kept ones, and those before
    /// its earliest kept one that would still overlap the window (estimated by segment_s) — rows retention deleted.
    private func deletedSegments(in rows: [Recording], from: Date) async throws -> [String] {
        let segmentS = config.recording.segmentS
        guard segmentS > 0 else { return [] }
        var firstKept: [String: Recording] = [:]
        var kept: [String: Set<Int>] = [:]
        for row in rows {
            guard let group = row.group, let segment = row.segment else { continue }
            kept[group, default: []].insert(segment)
            if let first = firstKept[group], (first.segment ?? 0) <= segment { continue }
            firstKept[group] = row
        }
        var missing: [String] = []
        for (group, row) in firstKept.sorted(by: { $0.value.createdAt < $1.value.createdAt }) {
            let numbers = kept[group] ?? []
            if let low = numbers.min(), let high = numbers.max() {
                missing += (low...high).filter { !numbers.contains($0) }.map { "\(group)#\($0)" }
            }
            var segment = (row.segment ?? 1) - 1
            var start = row.createdAt.addingTimeInterval(-segmentS)
            while segment >= 1, start.addingTimeInterval(segmentS) > from,
                try await !library.hasSegment(group: group, segment: segment)
            {
                missing.append("\(group)#\(segment)")
                segment -= 1
                start = start.addingTimeInterval(-segmentS)
            }
        }
        return missing
    }
}
