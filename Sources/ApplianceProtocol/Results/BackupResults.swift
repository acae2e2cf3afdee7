import Foundation

/// Upload progress of the clip being backed up.
public struct BackupProgress: Codable, Sendable, Equatable {
    public var id: String
    public var bytesDone: Int64
    public var bytesTotal: Int64
    public var rateKbps: Double

    public init(id: String, bytesDone: Int64, bytesTotal: Int64, rateKbps: Double) {
        (self.id, self.bytesDone, self.bytesTotal, self.rateKbps) = (id, bytesDone, bytesTotal, rateKbps)
    }
}

/// Jobs in the backup queue by state.
public struct BackupCounts: Codable, Sendable, Equatable {
    public var pending = 0
    public var running = 0
    public var done = 0
    public var failed = 0

    public init(pending: Int = 0, running: Int = 0, done: Int = 0, failed: Int = 0) {
        (self.pending, self.running, self.done, self.failed) = (pending, running, done, failed)
    }
}

/// What `backup.status` answers.
public struct BackupStatus: Codable, Sendable, Equatable {
    public var enabled: Bool
    /// The server URL without credentials.
    public var url: String
    public var onlyLocked: Bool
    public var bandwidthKbps: Int
    public var paused: Bool
    public var pauseReason: String?
    public var counts: BackupCounts
    public var current: BackupProgress?
    public var lastError: String?
    public var nextRetryAt: Date?

    public init(
        enabled: Bool, url: String, onlyLocked: Bool, bandwidthKbps: Int, paused: Bool, pauseReason: String?,
        counts: BackupCounts, current: BackupProgress?, lastError: String?, nextRetryAt: Date?
    ) {
        (self.enabled, self.url, self.onlyLocked, self.bandwidthKbps) = (enabled, url, onlyLocked, bandwidthKbps)
        (self.paused, self.pauseReason, self.counts, self.current) = (paused, pauseReason, counts, current)
        (self.lastError, self.nextRetryAt) = (lastError, nextRetryAt)
    }

    /// Backup switched off (`[backup] url` empty).
    public static let off = BackupStatus(
        enabled: false, url: "", onlyLocked: false, bandwidthKbps: 0, paused: false,
        pauseReason: nil, counts: BackupCounts(), current: nil, lastError: nil, nextRetryAt: nil)
}

/// What `backup.retry` answers.
public struct RetryResult: Codable, Sendable, Equatable {
    public var requeued: Int
    public init(requeued: Int) { self.requeued = requeued }
}
