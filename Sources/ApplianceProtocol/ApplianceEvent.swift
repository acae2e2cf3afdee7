import Foundation

/// Everything the appliance tells its front ends as it happens. One typed stream (`EventHub`) feeds the socket's
/// `events` subscription, and next the web page and the recording light; docs/PROTOCOL.md lists the wire form.
public enum ApplianceEvent: Sendable, Equatable {
    case ready(Ready)
    case recordingStarted(RecordingStarted)
    case recordingStopped(RecordingResult)
    /// Loop recording: a segment's file is finished while the recording goes on in the next one.
    case segmentClosed(RecordingResult)
    case thumbnailReady(ThumbnailReady)
    case renamed(Renamed)
    case locked(ClipEvent)
    case unlocked(ClipEvent)
    case deleted(ClipEvent)
    case error(PipelineError)
    case cameraSwitched(CameraSwitched)
    case cameraFailed(CameraFailure)
    case cameraAvailable(CameraDevice)
    case cameraMissing(CameraDevice)
    case deviceAdded(DeviceInfo)
    case deviceRemoved(DeviceInfo)
    case storageMissing(StorageStatus)
    case storageAvailable(StorageStatus)
    case retentionDeleted(RetentionDeletion)
    case retentionWarning(RetentionDeletion)
    case storageFull(StorageFull)
    case exported(ExportResult)
    case backupStarted(BackupTransfer)
    case backupProgress(BackupProgress)
    case backupDone(BackupDone)
    case backupRetry(BackupRetryScheduled)
    case backupFailed(BackupFailure)
    case backupPaused(BackupPause)
    case backupResumed(BackupPause)
    case backupDeleted(BackupTransfer)
    /// Output frames stopped advancing, or the bus thread stopped turning (a watchdog abort follows under systemd).
    case stalled(Stall)
    /// Frames flow again after a stall.
    case flowing(Stall)
    /// The video encoder failed while running and was replaced (the clip being recorded ended; the next one began).
    case encoderFailed(EncoderFailure)
    /// An `[[input]]` device was opened (at start, or when it appeared).
    case inputConnected(InputStatus)
    /// An `[[input]]` device is not there, vanished or cannot be used; it is looked for again.
    case inputMissing(InputStatus)
    /// A button gesture was recognised and its command sent.
    case inputGesture(InputGesture)
    /// The MQTT broker took the connection (after start, or again after a loss).
    case mqttConnected(MQTTStatus)
    /// The MQTT link is down or could not be made; it is tried again with backoff.
    case mqttDisconnected(MQTTStatus)
    /// Motion on the live picture lasted `[motion] min_duration_s`.
    case motionStarted(MotionEvent)
    /// No motion for the release time since the last frame that had some.
    case motionEnded(MotionEvent)
    /// Sound above `[sound] threshold_db` lasted `min_duration_s`.
    case soundStarted(SoundEvent)
    /// The sound stayed below the threshold for the release time.
    case soundEnded(SoundEvent)
    /// A tracked object (`[objects] track`) was found in several detector runs in a row.
    case objectStarted(ObjectEvent)
    /// It was not found for `[objects] release_s`.
    case objectEnded(ObjectEvent)
    /// An activity was stored or closed: motion or sound that ended, a mark, a press of the event button.
    case activity(Activity)
    /// The wall clock jumped (set by hand, or its first sync on a board without a clock battery); what this boot
    /// recorded before it was dated again by the jump.
    case clockJumped(ClockJump)
    /// A door (the web, RTSP, ONVIF) refused a credential: one event per refusal, with the client's address.
    case authFailed(AuthFailure)
    /// A sound on the speaker ended (played to its end, or cut short by the next).
    case speakerPlayed(SpeakerPlayback)
    /// The speaker could not play a sound (its device gone or busy, its sink failed).
    case speakerFailed(SpeakerFailure)

    /// The wire name (`recording_started`).
    public var name: String { kind.rawValue }

    /// Which event this is, without its data.
    public var kind: Kind {
        switch self {
        case .ready: .ready
        case .recordingStarted: .recordingStarted
        case .recordingStopped: .recordingStopped
        case .segmentClosed: .segmentClosed
        case .thumbnailReady: .thumbnailReady
        case .renamed: .renamed
        case .locked: .locked
        case .unlocked: .unlocked
        case .deleted: .deleted
        case .error: .error
        case .cameraSwitched: .cameraSwitched
        case .cameraFailed: .cameraFailed
        case .cameraAvailable: .cameraAvailable
        case .cameraMissing: .cameraMissing
        case .deviceAdded: .deviceAdded
        case .deviceRemoved: .deviceRemoved
        case .storageMissing: .storageMissing
        case .storageAvailable: .storageAvailable
        case .retentionDeleted: .retentionDeleted
        case .retentionWarning: .retentionWarning
        case .storageFull: .storageFull
        case .exported: .exported
        case .backupStarted: .backupStarted
        case .backupProgress: .backupProgress
        case .backupDone: .backupDone
        case .backupRetry: .backupRetry
        case .backupFailed: .backupFailed
        case .backupPaused: .backupPaused
        case .backupResumed: .backupResumed
        case .backupDeleted: .backupDeleted
        case .stalled: .stalled
        case .flowing: .flowing
        case .encoderFailed: .encoderFailed
        case .inputConnected: .inputConnected
        case .inputMissing: .inputMissing
        case .inputGesture: .inputGesture
        case .mqttConnected: .mqttConnected
        case .mqttDisconnected: .mqttDisconnected
        case .motionStarted: .motionStarted
        case .motionEnded: .motionEnded
        case .soundStarted: .soundStarted
        case .soundEnded: .soundEnded
        case .objectStarted: .objectStarted
        case .objectEnded: .objectEnded
        case .activity: .activity
        case .clockJumped: .clockJumped
        case .authFailed: .authFailed
        case .speakerPlayed: .speakerPlayed
        case .speakerFailed: .speakerFailed
        }
    }

    /// The event's data, as it goes on the wire.
    var payload: any Encodable & Sendable {
        switch self {
        case .ready(let data): data
        case .recordingStarted(let data): data
        case .recordingStopped(let data), .segmentClosed(let data): data
        case .thumbnailReady(let data): data
        case .renamed(let data): data
        case .locked(let data), .unlocked(let data), .deleted(let data): data
        case .error(let data): data
        case .cameraSwitched(let data): data
        case .cameraFailed(let data): data
        case .cameraAvailable(let data), .cameraMissing(let data): data
        case .deviceAdded(let data), .deviceRemoved(let data): data
        case .storageMissing(let data), .storageAvailable(let data): data
        case .retentionDeleted(let data), .retentionWarning(let data): data
        case .storageFull(let data): data
        case .exported(let data): data
        case .backupStarted(let data), .backupDeleted(let data): data
        case .backupProgress(let data): data
        case .backupDone(let data): data
        case .backupRetry(let data): data
        case .backupFailed(let data): data
        case .backupPaused(let data), .backupResumed(let data): data
        case .stalled(let data), .flowing(let data): data
        case .encoderFailed(let data): data
        case .inputConnected(let data), .inputMissing(let data): data
        case .inputGesture(let data): data
        case .mqttConnected(let data), .mqttDisconnected(let data): data
        case .motionStarted(let data), .motionEnded(let data): data
        case .soundStarted(let data), .soundEnded(let data): data
        case .objectStarted(let data), .objectEnded(let data): data
        case .activity(let data): data
        case .clockJumped(let data): data
        case .authFailed(let data): data
        case .speakerPlayed(let data): data
        case .speakerFailed(let data): data
        }
    }

    /// Every event's wire name, declared once: `kind` maps each case here (the compiler checks it), and decoding
    /// maps each kind back (`EventRecord`), so a name no case carries is refused rather than guessed at.
    public enum Kind: String, CaseIterable, Sendable, Codable {
        case ready
        case recordingStarted = "recording_started"
        case recordingStopped = "recording_stopped"
        case segmentClosed = "segment_closed"
        case thumbnailReady = "thumbnail_ready"
        case renamed
        case locked
        case unlocked
        case deleted
        case error
        case cameraSwitched = "camera_switched"
        case cameraFailed = "camera_failed"
        case cameraAvailable = "camera_available"
        case cameraMissing = "camera_missing"
        case deviceAdded = "device_added"
        case deviceRemoved = "device_removed"
        case storageMissing = "storage_missing"
        case storageAvailable = "storage_available"
        case retentionDeleted = "retention_deleted"
        case retentionWarning = "retention_warning"
        case storageFull = "storage_full"
        case exported
        case backupStarted = "backup_started"
        case backupProgress = "backup_progress"
        case backupDone = "backup_done"
        case backupRetry = "backup_retry"
        case backupFailed = "backup_failed"
        case backupPaused = "backup_paused"
        case backupResumed = "backup_resumed"
        case backupDeleted = "backup_deleted"
        case stalled
        case flowing
        case encoderFailed = "encoder_failed"
        case inputConnected = "input_connected"
        case inputMissing = "input_missing"
        case inputGesture = "input_gesture"
        case mqttConnected = "mqtt_connected"
        case mqttDisconnected = "mqtt_disconnected"
        case motionStarted = "motion_started"
        case motionEnded = "motion_ended"
        case soundStarted = "sound_started"
        case soundEnded = "sound_ended"
        case objectStarted = "object_started"
        case objectEnded = "object_ended"
        case activity
        case clockJumped = "clock_jumped"
        case authFailed = "auth_failed"
        case speakerPlayed = "speaker_played"
        case speakerFailed = "speaker_failed"
    }
}
