import Foundation

/// What a command answers, typed per command (see `Command`).
public enum CommandResult: Sendable, Equatable {
    case pong(Pong)
    case version(VersionInfo)
    case status(StatusReport)
    case recordingStarted(RecordingStarted)
    case recordingStopped(RecordingResult)
    case toggled(ToggleResult)
    case snapshot(SnapshotResult)
    case list(ListResult)
    case info(RecordingInfo)
    /// `rename`, `lock` and `unlock`: the recording object after the change.
    case recording(Recording)
    case deleted(DeleteResult)
    case cameras(CamerasReport)
    case discovered(CameraDiscovery)
    case switched(SwitchResult)
    case played(PlayResult)
    case backupStatus(BackupStatus)
    case backupRetry(RetryResult)
    case protected(ProtectResult)
    case exported(ExportResult)
    case metrics(MetricsReport)
    case shared(ShareLink)
    case shares(ShareList)
    case unshared(UnshareResult)
    case activity(ActivityList)
    case activityDetail(ActivityDetail)
    /// `activity.mark`: the stored activity.
    case activityMarked(Activity)
    case timeline(Timeline)
    case timelineDays(TimelineDays)
    case users(UserList)
    /// `user.add`, `user.passwd`, `user.role`, `user.revoke_tokens`: the account after the change.
    case user(UserAccount)
    case userRemoved(UserRemoved)
    case userToken(UserToken)

    /// The result object as it goes on the wire.
    public var payload: any Encodable & Sendable {
        switch self {
        case .pong(let value): value
        case .version(let value): value
        case .status(let value): value
        case .recordingStarted(let value): value
        case .recordingStopped(let value): value
        case .toggled(let value): value
        case .snapshot(let value): value
        case .list(let value): value
        case .info(let value): value
        case .recording(let value): value
        case .deleted(let value): value
        case .cameras(let value): value
        case .discovered(let value): value
        case .switched(let value): value
        case .played(let value): value
        case .backupStatus(let value): value
        case .backupRetry(let value): value
        case .protected(let value): value
        case .exported(let value): value
        case .metrics(let value): value
        case .shared(let value): value
        case .shares(let value): value
        case .unshared(let value): value
        case .activity(let value): value
        case .activityDetail(let value): value
        case .activityMarked(let value): value
        case .timeline(let value): value
        case .timelineDays(let value): value
        case .users(let value): value
        case .user(let value): value
        case .userRemoved(let value): value
        case .userToken(let value): value
        }
    }

    /// Decodes the result object a daemon sent for `command`.
    public static func decode(for command: Command, from data: Data) throws -> CommandResult {
        try decode(command, data, enveloped: false)
    }

    /// Decodes the result of `command` straight from a whole response line (`{"id", "ok", "result"}`).
    static func decode(for command: Command, inResponse line: Data) throws -> CommandResult {
        try decode(command, line, enveloped: true)
    }

    private struct Enveloped<T: Decodable>: Decodable { var result: T }

    private static func decode(_ command: Command, _ data: Data, enveloped: Bool) throws -> CommandResult {
        func value<T: Decodable>(_ type: T.Type) throws -> T {
            enveloped
                ? try WireFormat.decoder.decode(Enveloped<T>.self, from: data).result
                : try WireFormat.decoder.decode(T.self, from: data)
        }
        switch command {
        case .ping: return .pong(try value(Pong.self))
        case .version: return .version(try value(VersionInfo.self))
        case .status: return .status(try value(StatusReport.self))
        case .recordStart: return .recordingStarted(try value(RecordingStarted.self))
        case .recordStop: return .recordingStopped(try value(RecordingResult.self))
        case .recordToggle: return .toggled(try value(ToggleResult.self))
        case .snapshot: return .snapshot(try value(SnapshotResult.self))
        case .list, .listGrouped, .listSegments, .listFiltered: return .list(try value(ListResult.self))
        case .info: return .info(try value(RecordingInfo.self))
        case .rename, .lock, .unlock: return .recording(try value(Recording.self))
        case .delete: return .deleted(try value(DeleteResult.self))
        case .cameras: return .cameras(try value(CamerasReport.self))
        case .discoverCameras: return .discovered(try value(CameraDiscovery.self))
        case .switchCamera: return .switched(try value(SwitchResult.self))
        case .play: return .played(try value(PlayResult.self))
        case .backupStatus: return .backupStatus(try value(BackupStatus.self))
        case .backupRetry: return .backupRetry(try value(RetryResult.self))
        case .protect: return .protected(try value(ProtectResult.self))
        case .export: return .exported(try value(ExportResult.self))
        case .metrics: return .metrics(try value(MetricsReport.self))
        case .share: return .shared(try value(ShareLink.self))
        case .shares: return .shares(try value(ShareList.self))
        case .unshare: return .unshared(try value(UnshareResult.self))
        case .activity: return .activity(try value(ActivityList.self))
        case .activityShow: return .activityDetail(try value(ActivityDetail.self))
        case .activityMark: return .activityMarked(try value(Activity.self))
        case .activityProtect: return .protected(try value(ProtectResult.self))
        case .timeline: return .timeline(try value(Timeline.self))
        case .timelineDays: return .timelineDays(try value(TimelineDays.self))
        case .users: return .users(try value(UserList.self))
        case .userAdd, .userPassword, .userRole, .userRevokeTokens: return .user(try value(UserAccount.self))
        case .userRemove: return .userRemoved(try value(UserRemoved.self))
        case .userToken: return .userToken(try value(UserToken.self))
        }
    }
}

extension CommandResult {
    /// The result object as compact JSON on one line (what `ctl --json` prints).
    public var json: String { (try? WireFormat.compactJSON(AnyEncodable(payload))) ?? "{}" }
}
