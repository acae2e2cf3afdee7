import Foundation

/// What `record start` answers.
public struct RecordingStarted: Codable, Sendable {
    public var id: String
    public var title: String
    public var partialPath: String
    public var createdAt: String
}

/// What `record stop` answers: the finished clip with its measured timing.
public struct RecordingResult: Codable, Sendable {
    public var id: String
    public var title: String
    /// Absolute path of the finished MP4.
    public var path: String
    /// Absolute path of the JPEG thumbnail, or null if none could be made.
    public var thumbnail: String?
    public var durationMs: Int
    public var videoFrames: UInt64
    public var droppedFrames: UInt64
    public var audioDurationMs: Int?
    /// First audio minus first video running time, ms.
    public var avOffsetMs: Double?
    public var sizeBytes: Int64
    public var width: Int
    public var height: Int
    public var framerate: Int
    public var createdAt: String
    public var endedAt: String
    /// "request", "max_duration" or "shutdown".
    public var stopReason: String
    /// From the start request to the first frame entering the recording bin.
    public var startLatencyMs: Double?
    /// From the last frame entering the recording bin to the finalised, moved file (this answer).
    public var stopLatencyMs: Double?
}

/// What `snapshot` answers.
public struct SnapshotResult: Codable, Sendable {
    public var id: String
    public var path: String
    public var width: Int
    public var height: Int
}

/// What `status` answers.
public struct StatusReport: Codable, Sendable {
    public struct Live: Codable, Sendable {
        public var id: String
        public var title: String
        public var elapsedMs: Int
        public var durationMs: Int
        public var videoFrames: UInt64
        public var droppedFrames: UInt64
        public var avOffsetMs: Double?
        public var partialPath: String
    }

    public var state: String
    public var recording: Live?
    public var cameras: [String]
    public var activeCamera: String
    public var cameraSources: [String: String]
    public var audioSource: String
    public var preview: String
    public var encoder: String
    public var width: Int
    public var height: Int
    public var framerate: Int
    public var dataDir: String
    public var uptimeS: Double
    public var recordingsThisRun: Int
    public var lastError: String?
    public var gstreamerVersion: String
    public var recordingsTotal: Int
    public var databaseBytes: Int64
    /// What start-up recovery did: ids recovered, failed and adopted, and how long it took.
    public var recovery: Recovery.Report?
    /// The output clock after the camera selector since start.
    public var output: OutputStats
}

/// Counters of the output clock (frames leaving the camera selector), for switching measurements.
public struct OutputStats: Codable, Sendable {
    public var frames: UInt64
    /// Frames dropped because their time slot was taken (switching to a camera whose frames arrive later).
    public var slotCollisions: UInt64
    /// Slots filled by repeating the last frame (switching away from such a camera).
    public var filledSlots: UInt64
    /// Slots left empty (stalls longer than the fill limit).
    public var missingSlots: UInt64
    /// Frames missing at the encoder input while recording.
    public var missingAtEncoder: UInt64
}

enum Timestamps {
    /// ISO 8601 with milliseconds, UTC.
    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// Default title: local date and time, e.g. "2026-11-21 14:03:12".
    static func title(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }
}
