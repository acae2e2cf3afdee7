import Foundation

extension ApplianceEvent {
    /// The event of `kind`, its data read from `decoder` as the type that kind carries. One case per kind, so a
    /// new event does not compile until it says how it is read.
    init(_ kind: Kind, data decoder: Decoder) throws {
        func data<T: Decodable>(_ type: T.Type) throws -> T { try T(from: decoder) }
        self =
            switch kind {
            case .ready: .ready(try data(Ready.self))
            case .recordingStarted: .recordingStarted(try data(RecordingStarted.self))
            case .recordingStopped: .recordingStopped(try data(RecordingResult.self))
            case .segmentClosed: .segmentClosed(try data(RecordingResult.self))
            case .retentionDeleted: .retentionDeleted(try data(RetentionDeletion.self))
            case .retentionWarning: .retentionWarning(try data(RetentionDeletion.self))
            case .storageFull: .storageFull(try data(StorageFull.self))
            case .exported: .exported(try data(ExportResult.self))
            case .thumbnailReady: .thumbnailReady(try data(ThumbnailReady.self))
            case .renamed: .renamed(try data(Renamed.self))
            case .locked: .locked(try data(ClipEvent.self))
            case .unlocked: .unlocked(try data(ClipEvent.self))
            case .deleted: .deleted(try data(ClipEvent.self))
            case .error: .error(try data(PipelineError.self))
            case .cameraSwitched: .cameraSwitched(try data(CameraSwitched.self))
            case .cameraFailed: .cameraFailed(try data(CameraFailure.self))
            case .cameraAvailable: .cameraAvailable(try data(CameraDevice.self))
            case .cameraMissing: .cameraMissing(try data(CameraDevice.self))
            case .deviceAdded: .deviceAdded(try data(DeviceInfo.self))
            case .deviceRemoved: .deviceRemoved(try data(DeviceInfo.self))
            case .storageMissing: .storageMissing(try data(StorageStatus.self))
            case .storageAvailable: .storageAvailable(try data(StorageStatus.self))
            case .backupStarted: .backupStarted(try data(BackupTransfer.self))
            case .backupProgress: .backupProgress(try data(BackupProgress.self))
            case .backupDone: .backupDone(try data(BackupDone.self))
            case .backupRetry: .backupRetry(try data(BackupRetryScheduled.self))
            case .backupFailed: .backupFailed(try data(BackupFailure.self))
            case .backupPaused: .backupPaused(try data(BackupPause.self))
            case .backupResumed: .backupResumed(try data(BackupPause.self))
            case .backupDeleted: .backupDeleted(try data(BackupTransfer.self))
            case .stalled: .stalled(try data(Stall.self))
            case .flowing: .flowing(try data(Stall.self))
            case .encoderFailed: .encoderFailed(try data(EncoderFailure.self))
            case .clockJumped: .clockJumped(try data(ClockJump.self))
            case .authFailed: .authFailed(try data(AuthFailure.self))
            case .speakerPlayed: .speakerPlayed(try data(SpeakerPlayback.self))
            case .speakerFailed: .speakerFailed(try data(SpeakerFailure.self))
            case .inputConnected: .inputConnected(try data(InputStatus.self))
            case .inputMissing: .inputMissing(try data(InputStatus.self))
            case .inputGesture: .inputGesture(try data(InputGesture.self))
            case .mqttConnected: .mqttConnected(try data(MQTTStatus.self))
            case .mqttDisconnected: .mqttDisconnected(try data(MQTTStatus.self))
            case .motionStarted: .motionStarted(try data(MotionEvent.self))
            case .motionEnded: .motionEnded(try data(MotionEvent.self))
            case .objectStarted: .objectStarted(try data(ObjectEvent.self))
            case .objectEnded: .objectEnded(try data(ObjectEvent.self))
            case .soundStarted: .soundStarted(try data(SoundEvent.self))
            case .soundEnded: .soundEnded(try data(SoundEvent.self))
            case .activity: .activity(try data(Activity.self))
            }
    }
}
