import Foundation

/// What the recorder is doing.
public enum RecorderState: String, Codable, Sendable {
    case idle, recording, stopping
}

/// What `status` answers.
public struct StatusReport: Codable, Sendable, Equatable {
    /// The recording in progress.
    public struct Live: Codable, Sendable, Equatable {
        public var id: String
        public var title: String
        public var elapsedMs: Int
        /// Video written so far.
        public var durationMs: Int
        public var videoFrames: UInt64
        public var droppedFrames: UInt64
        public var avOffsetMs: Double?
        public var partialPath: String
        /// Loop recording: the group id and the number of the segment being written (`elapsed_ms` counts from
        /// the first segment).
        public var group: String?
        public var segment: Int?

        public init(
            id: String, title: String, elapsedMs: Int, durationMs: Int, videoFrames: UInt64, droppedFrames: UInt64,
            avOffsetMs: Double?, partialPath: String
        ) {
            (self.id, self.title, self.elapsedMs, self.durationMs) = (id, title, elapsedMs, durationMs)
            (self.videoFrames, self.droppedFrames, self.avOffsetMs, self.partialPath) = (
                videoFrames, droppedFrames, avOffsetMs, partialPath
            )
        }
    }

    public var state: RecorderState
    /// The socket answers and the first video frame has passed the camera selector (what systemd's READY=1 means).
    public var ready: Bool
    public var recording: Live?
    public var cameras: [String]
    public var activeCamera: String
    /// What each camera resolved to: `v4l2`, `test` or `pipeline`.
    public var cameraSources: [String: String]
    /// Each V4L2 camera's capture mode since it last started (`YUY2 1280x720@30`); absent when there is none.
    public var cameraModes: [String: String]?
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
    /// What start-up recovery did.
    public var recovery: RecoveryReport?
    /// The output clock after the camera selector since start.
    public var output: OutputStats
    /// Whether the storage holding the recordings is there.
    public var storage: StorageStatus
    /// Space used and free, the locked share and when the oldest unlocked clip is overwritten (from the latest
    /// retention pass).
    public var capacity: Capacity?
    /// Why recording cannot go on for lack of space; absent while there is room.
    public var storageFull: String?
    /// `[[input]]` shutters: whether each is connected (absent when none is configured).
    public var inputs: [InputStatus]?
    /// `[[output]]` lights: what each shows (absent when none is configured).
    public var outputs: [OutputStatus]?
    /// The web dashboard (absent when it is off).
    public var web: WebStatus?
    /// The RTSP live stream (absent when it is off).
    public var rtsp: RTSPStatus?
    /// The MQTT link (absent when it is off).
    public var mqtt: MQTTStatus?
    /// ONVIF: discovery and subscriptions (absent when it is off).
    public var onvif: ONVIFStatus?
    /// How the encoder (`encoder`) was chosen, and each candidate's trial.
    public var encoderChoice: EncoderChoice?
    /// Motion detection (absent when it is off).
    public var motion: MotionStatus?
    /// Object detection (absent when it is off, or when its detector could not be made).
    public var objects: ObjectStatus?
    /// The microphone's level and sound detection (absent without sound).
    public var sound: SoundStatus?
    /// The speaker (absent when there is none).
    public var speaker: SpeakerStatus?
    /// The wall clock: whether the kernel says it is synchronised, and the jumps this daemon saw.
    public var clock: ClockStatus?
    /// Every channel, the first (whose picture the fields above describe) first.
    public var channels: [ChannelStatus] = []

    public init(
        state: RecorderState, ready: Bool, recording: Live?, cameras: [String], activeCamera: String,
        cameraSources: [String: String], audioSource: String, preview: String, encoder: String, width: Int,
        height: Int, framerate: Int, dataDir: String, uptimeS: Double, recordingsThisRun: Int, lastError: String?,
        gstreamerVersion: String, recordingsTotal: Int, databaseBytes: Int64, recovery: RecoveryReport?,
        output: OutputStats, storage: StorageStatus
    ) {
        (self.state, self.ready, self.recording, self.cameras) = (state, ready, recording, cameras)
        (self.activeCamera, self.cameraSources, self.audioSource, self.preview) = (
            activeCamera, cameraSources, audioSource, preview
        )
        (self.encoder, self.width, self.height, self.framerate) = (encoder, width, height, framerate)
        (self.dataDir, self.uptimeS, self.recordingsThisRun, self.lastError) = (
            dataDir, uptimeS, recordingsThisRun, lastError
        )
        (self.gstreamerVersion, self.recordingsTotal, self.databaseBytes, self.recovery) = (
            gstreamerVersion, recordingsTotal, databaseBytes, recovery
        )
        (self.output, self.storage) = (output, storage)
    }
}

/// What start-up recovery did (ids), and how long it took.
public struct RecoveryReport: Codable, Sendable, Equatable {
    /// Files left in partial/ by a crash, now clips in recordings/ (or rows whose file came back).
    public var recovered: [String] = []
    /// Rows whose file is gone, or whose recording left nothing behind (`failure_reason` says which).
    public var failed: [String] = []
    /// Files in recordings/ that had no row.
    public var adopted: [String] = []
    /// Partial files with no media in them (the daemon died before the first frame): removed, rows say why.
    public var empty: [String] = []
    public var durationMs: Double = 0
    /// Whether the rows have been checked against the files yet: start-up recovers partial/ before it serves, and
    /// does the rest in the background (`failed`, `adopted` and the storage's state come then).
    public var reconciled = false

    public init() {}
}

/// Counters of the output clock (frames leaving the camera selector).
public struct OutputStats: Codable, Sendable, Equatable {
    public var frames: UInt64
    /// Frames dropped because their time slot was taken.
    public var slotCollisions: UInt64
    /// Slots filled by repeating the last frame.
    public var filledSlots: UInt64
    /// Slots left empty (stalls longer than the fill limit).
    public var missingSlots: UInt64
    /// Frames missing at the encoder input while recording.
    public var missingAtEncoder: UInt64

    public init(
        frames: UInt64, slotCollisions: UInt64, filledSlots: UInt64, missingSlots: UInt64, missingAtEncoder: UInt64
    ) {
        (self.frames, self.slotCollisions, self.filledSlots, self.missingSlots) = (
            frames, slotCollisions, filledSlots, missingSlots
        )
        (self.missingAtEncoder) = (missingAtEncoder)
    }
}

/// Whether the storage that holds the recordings is present. `missing` is one condition, not one error per clip:
/// rows keep their state and the clips come back when the files do.
public struct StorageStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable { case ok, missing }

    public var state: State
    /// The folder the recordings live in.
    public var recordingsDir: String
    /// Clips whose files are not there while the storage is missing.
    public var missingFiles: Int?
    public var detail: String?

    public init(state: State, recordingsDir: String, missingFiles: Int? = nil, detail: String? = nil) {
        (self.state, self.recordingsDir, self.missingFiles, self.detail) = (state, recordingsDir, missingFiles, detail)
    }
}

/// The wall clock as the daemon sees it: `synchronized` (the kernel's word: NTP, chrony or timesyncd set it), how many
/// times it jumped while this daemon ran, and the last jump (`clock_jumped`).
public struct ClockStatus: Codable, Sendable, Equatable {
    public var synchronized: Bool
    public var jumps: Int
    public var lastJump: ClockJump?
    public init(synchronized: Bool, jumps: Int = 0, lastJump: ClockJump? = nil) {
        (self.synchronized, self.jumps, self.lastJump) = (synchronized, jumps, lastJump)
    }
}
