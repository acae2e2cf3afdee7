import Foundation

/// An event with the time it happened; on the wire one line:
/// `{"event": "recording_stopped", "time": "2026-11-21T14:03:15.456Z", "data": {…}}`.
public struct EventRecord: Sendable, Equatable, Codable {
    public var event: ApplianceEvent
    public var time: Date

    public init(_ event: ApplianceEvent, time: Date = Date()) { (self.event, self.time) = (event, time) }

    enum Keys: String, CodingKey { case event, time, data }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(event.name, forKey: .event)
        try container.encode(time, forKey: .time)
        try container.encode(AnyEncodable(event.payload), forKey: .data)
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        time = try container.decode(Date.self, forKey: .time)
        let name = try container.decode(String.self, forKey: .event)
        func data<T: Decodable>(_ type: T.Type) throws -> T { try container.decode(T.self, forKey: .data) }
        switch name {
        case "ready": event = .ready(try data(Ready.self))
        case "recording_started": event = .recordingStarted(try data(RecordingStarted.self))
        case "recording_stopped": event = .recordingStopped(try data(RecordingResult.self))
        case "segment_closed": event = .segmentClosed(try data(RecordingResult.self))
        case "retention_deleted": event = .retentionDeleted(try data(RetentionDeletion.self))
        case "retention_warning": event = .retentionWarning(try data(RetentionDeletion.self))
        case "storage_full": event = .storageFull(try data(StorageFull.self))
        case "exported": event = .exported(try data(ExportResult.self))
        case "thumbnail_ready": event = .thumbnailReady(try data(ThumbnailReady.self))
        case "renamed": event = .renamed(try data(Renamed.self))
        case "locked": event = .locked(try data(ClipEvent.self))
        case "unlocked": event = .unlocked(try data(ClipEvent.self))
        case "deleted": event = .deleted(try data(ClipEvent.self))
        case "error": event = .error(try data(PipelineError.self))
        case "camera_switched": event = .cameraSwitched(try data(CameraSwitched.self))
        case "camera_failed": event = .cameraFailed(try data(CameraFailure.self))
        case "camera_available": event = .cameraAvailable(try data(CameraDevice.self))
        case "camera_missing": event = .cameraMissing(try data(CameraDevice.self))
        case "device_added": event = .deviceAdded(try data(DeviceInfo.self))
        case "device_removed": event = .deviceRemoved(try data(DeviceInfo.self))
        case "storage_missing": event = .storageMissing(try data(StorageStatus.self))
        case "storage_available": event = .storageAvailable(try data(StorageStatus.self))
        case "backup_started": event = .backupStarted(try data(BackupTransfer.self))
        case "backup_progress": event = .backupProgress(try data(BackupProgress.self))
        case "backup_done": event = .backupDone(try data(BackupDone.self))
        case "backup_retry": event = .backupRetry(try data(BackupRetryScheduled.self))
        case "backup_failed": event = .backupFailed(try data(BackupFailure.self))
        case "backup_paused": event = .backupPaused(try data(BackupPause.self))
        case "backup_resumed": event = .backupResumed(try data(BackupPause.self))
        case "backup_deleted": event = .backupDeleted(try data(BackupTransfer.self))
        case "stalled": event = .stalled(try data(Stall.self))
        case "flowing": event = .flowing(try data(Stall.self))
        case "input_connected": event = .inputConnected(try data(InputStatus.self))
        case "input_missing": event = .inputMissing(try data(InputStatus.self))
        case "input_gesture": event = .inputGesture(try data(InputGesture.self))
        default: event = .other(name: name, data: (try? data(JSONValue.self)) ?? .null)
        }
    }

    /// The event's data as a JSON value (for generic display, e.g. `ctl events`).
    public var data: JSONValue {
        (try? WireFormat.decoder.decode(JSONValue.self, from: WireFormat.encoder.encode(AnyEncodable(event.payload)))) ?? .null
    }
}

/// Lets a value of any Encodable type be encoded where a concrete type is needed.
struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: Encoder) throws { try value.encode(to: encoder) }
}
