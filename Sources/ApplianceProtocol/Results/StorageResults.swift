import Foundation

/// What `protect` answers.
public struct ProtectResult: Codable, Sendable, Equatable {
    /// The window protected.
    public var from: Date
    public var to: Date
    /// Clips locked now (already locked ones included), oldest first.
    public var locked: [String]
    /// Loop segments that overlapped the window but were already deleted: "group#segment".
    public var alreadyDeleted: [String]
    /// Segments that start before `to` are locked as they begin.
    public var pendingUntil: Date?

    public init(from: Date, to: Date, locked: [String], alreadyDeleted: [String], pendingUntil: Date?) {
        (self.from, self.to, self.locked, self.alreadyDeleted, self.pendingUntil) = (
            from, to, locked, alreadyDeleted, pendingUntil
        )
    }
}

/// The space clips take and what is left, as `status` reports it and retention judges it.
public struct Capacity: Codable, Sendable, Equatable {
    /// Bytes of clips (finished files plus the one being written).
    public var usedBytes: Int64
    /// Free bytes on the data folder's filesystem (for unprivileged users).
    public var freeBytes: Int64
    /// What clips may take in all: `max_used_gb`, else what they use plus what is free above `min_free_mb`.
    public var budgetBytes: Int64
    public var lockedBytes: Int64
    /// Locked bytes over the budget, in percent.
    public var lockedPercent: Double
    /// Measured from the recent clips (bytes over seconds), kbit/s; absent before a clip exists.
    public var bitrateKbps: Double?
    /// Recording at that rate, time until the oldest unlocked clip is overwritten; absent while it never will be
    /// (nothing to overwrite) or cannot be estimated.
    public var wrapsInS: Double?
    /// The same as words: "6 h 12 min".
    public var wrapsIn: String?
    /// How long the latest retention pass took, and what it deleted.
    public var lastPassMs: Double?
    public var lastPassDeleted: Int?

    public init(
        usedBytes: Int64, freeBytes: Int64, budgetBytes: Int64, lockedBytes: Int64, lockedPercent: Double,
        bitrateKbps: Double?, wrapsInS: Double?, wrapsIn: String?
    ) {
        (self.usedBytes, self.freeBytes, self.budgetBytes, self.lockedBytes) = (
            usedBytes, freeBytes, budgetBytes, lockedBytes
        )
        (self.lockedPercent, self.bitrateKbps, self.wrapsInS, self.wrapsIn) = (
            lockedPercent, bitrateKbps, wrapsInS, wrapsIn
        )
    }
}

/// `retention_deleted` (a clip deleted to make room or by age) and `retention_warning` (a clip not yet backed up
/// is about to go).
public struct RetentionDeletion: Codable, Sendable, Equatable {
    public enum Reason: String, Codable, Sendable {
        /// Older than `retention_days`.
        case age = "retention_days"
        /// Clips took more than `max_used_gb`.
        case maxUsed = "max_used_gb"
        /// Free space fell under `min_free_mb`.
        case minFree = "min_free_mb"
        /// Locked clips took more than `max_locked_percent` (on_full = "overwrite_oldest_locked").
        case lockedShare = "max_locked_percent"
    }

    public var id: String
    public var path: String
    public var createdAt: Date
    public var sizeBytes: Int64
    public var reason: Reason
    public var locked: Bool
    /// Whether a backup copy exists (the remote copy is kept).
    public var backedUp: Bool

    public init(
        id: String, path: String, createdAt: Date, sizeBytes: Int64, reason: Reason, locked: Bool, backedUp: Bool
    ) {
        (self.id, self.path, self.createdAt, self.sizeBytes) = (id, path, createdAt, sizeBytes)
        (self.reason, self.locked, self.backedUp) = (reason, locked, backedUp)
    }
}

/// `storage_full`: retention may free no more space; with on_full = "stop" the recording ended.
public struct StorageFull: Codable, Sendable, Equatable {
    public var reason: String
    public var capacity: Capacity
    /// Whether a recording was stopped because of it.
    public var stoppedRecording: Bool

    public init(reason: String, capacity: Capacity, stoppedRecording: Bool) {
        (self.reason, self.capacity, self.stoppedRecording) = (reason, capacity, stoppedRecording)
    }
}

/// What `export` answers: the new clip, and the clips it joined (oldest first).
public struct ExportResult: Codable, Sendable, Equatable {
    public var recording: Recording
    public var sources: [String]

    public init(recording: Recording, sources: [String]) { (self.recording, self.sources) = (recording, sources) }
}
