import Foundation

/// Everything a front end can ask of the appliance. The socket, `appliance ctl`, the web page, the shutters and
/// the timers all send these to one entry point (`Appliance.perform`) and get a `CommandResult` or an
/// `ApplianceError` back; JSON exists only where a command crosses a process boundary.
public enum Command: Sendable, Equatable {
    case ping
    /// The daemon's version and the libraries it runs on.
    case version
    case status
    /// `channel`: only that `[[channel]]` (nil: every channel).
    case recordStart(title: String?, channel: String? = nil)
    case recordStop(title: String?, channel: String? = nil)
    /// Starts a recording when idle, stops it when recording (shutter buttons, the console's space bar): one
    /// command, so two front ends pressing at once cannot both start.
    case recordToggle(title: String?, channel: String? = nil)
    /// `channel`: that `[[channel]]`'s picture (nil: the first channel's).
    case snapshot(channel: String? = nil)
    case list(page: Int, perPage: Int)
    /// `list` with `grouped`: a loop recording is one entry (its first kept segment, with `segments`, and the
    /// duration and size of all of them); other clips as they are.
    case listGrouped(page: Int, perPage: Int)
    /// `list` with `group`: one loop recording's segments, in order.
    case listSegments(group: String, page: Int, perPage: Int)
    /// `list` with `search`, `from` or `to`: the clips whose title contains the text, started in the range.
    case listFiltered(ListFilter, page: Int, perPage: Int)
    case info(id: String)
    case rename(id: String, title: String)
    case delete(id: String, force: Bool)
    case lock(id: String)
    case unlock(id: String)
    case cameras
    /// Looks for ONVIF cameras on the network (WS-Discovery) and, given a camera account, asks each for its stream
    /// addresses.
    case discoverCameras(CameraDiscoveryRequest)
    case switchCamera(CameraChoice)
    /// Plays a sound file or one of the device's chimes on the speaker (a sound playing is cut short).
    case play(PlayRequest)
    case backupStatus
    case backupRetry(id: String?)
    /// Locks every clip that overlaps [now − before, now + after] (seconds), with the reason "event"; loop
    /// segments still to come in that window are locked as they start.
    case protect(before: Double, after: Double)
    /// Joins clips into one new MP4 without re-encoding: a loop recording's segments by group id, or the clips of
    /// a time range (optionally of one camera).
    case export(ExportRequest)
    /// Counters and gauges for monitoring (frames, recording, storage, backup, cameras, uptime, restarts), in
    /// Prometheus's data model.
    case metrics
    /// Makes a share link for one clip, valid for `hours` (the config's `[web] share_hours` when nil).
    case share(id: String, hours: Double?)
    /// The share links that still work.
    case shares
    /// Revokes a share link at once.
    case unshare(link: String)
    /// Stored activity, newest first.
    case activity(ActivityFilter)
    case activityShow(id: Int64)
    /// Stores an external activity (a door contact, an accelerometer) and marks the recordings that cover it.
    case activityMark(ActivityMark)
    /// Locks the recordings that cover an activity (the event lock, after the fact).
    case activityProtect(id: Int64)
    /// A range at a glance: recorded spans, gaps, locks and activity.
    /// `channel`: only that channel's recordings and activity (nil: every channel's).
    case timeline(from: Date, to: Date, channel: String? = nil)
    /// A local month's days with recordings or activity (`month`: `2026-11`).
    case timelineDays(month: String)
    /// The accounts (never their secrets). Account commands come from the socket (local: its file permissions are
    /// the lock) and from an admin's web session.
    case users
    /// Adds an account (the name is 1 to 32 of a-z, 0-9, `.`, `_`, `-`; the password 8 to 72 bytes).
    case userAdd(name: String, role: UserRole, password: Secret)
    /// Sets an account's password (its web sessions end).
    case userPassword(name: String, password: Secret)
    /// Sets an account's role.
    case userRole(name: String, role: UserRole)
    /// Removes an account, its API tokens and its sessions.
    case userRemove(name: String)
    /// Makes an API token for an account, answered this once.
    case userToken(name: String)
    /// Revokes every API token of an account at once (its password and sessions stay).
    case userRevokeTokens(name: String)

    /// Which camera a switch goes to.
    public enum CameraChoice: Sendable, Equatable {
        case named(String)
        /// The next usable camera after the active one, in the channel named (nil: the first channel).
        case next(channel: String?)
    }

    public static let defaultPerPage = 10
    /// The bounds of `list`'s paging: numbers from outside stop here, long before `(page - 1) * perPage` could
    /// overflow (a trap is a remote crash).
    public static let pages = 1...1_000_000, perPageRange = 1...1000
    /// `protect` without arguments: 10 s before and 10 s after.
    public static let defaultProtectWindow = 10.0

    /// The command's name on the wire (docs/PROTOCOL.md).
    public var name: String { wireName.rawValue }

    /// Which wire command this is; several cases share one (`list` and its views).
    public var wireName: Name {
        switch self {
        case .ping: .ping
        case .version: .version
        case .status: .status
        case .recordStart: .recordStart
        case .recordStop: .recordStop
        case .recordToggle: .recordToggle
        case .snapshot: .snapshot
        case .list, .listGrouped, .listSegments, .listFiltered: .list
        case .info: .info
        case .rename: .rename
        case .delete: .delete
        case .lock: .lock
        case .unlock: .unlock
        case .cameras: .cameras
        case .discoverCameras: .discoverCameras
        case .switchCamera: .switchCamera
        case .play: .play
        case .backupStatus: .backupStatus
        case .backupRetry: .backupRetry
        case .protect: .protect
        case .export: .export
        case .metrics: .metrics
        case .share: .share
        case .shares: .shares
        case .unshare: .unshare
        case .activity: .activity
        case .activityShow: .activityShow
        case .activityMark: .activityMark
        case .activityProtect: .activityProtect
        case .timeline: .timeline
        case .timelineDays: .timelineDays
        case .users: .users
        case .userAdd: .userAdd
        case .userPassword: .userPassword
        case .userRole: .userRole
        case .userRemove: .userRemove
        case .userToken: .userToken
        case .userRevokeTokens: .userRevokeTokens
        }
    }

    /// Every command's wire name, declared once. Reading a request switches over these (`init(name:arguments:)`),
    /// so a name added here does not compile until it is parsed, and one parsed must be declared here.
    public enum Name: String, CaseIterable, Sendable {
        case ping, version, status
        case recordStart = "record.start", recordStop = "record.stop", recordToggle = "record.toggle"
        case snapshot, list, info, rename, delete, lock, unlock, cameras
        case discoverCameras = "cameras.discover"
        case switchCamera = "switch"
        case play
        case backupStatus = "backup.status", backupRetry = "backup.retry"
        case protect, export, metrics, share, shares, unshare
        case activity, activityShow = "activity.show", activityMark = "activity.mark", activityProtect =
            "activity.protect"
        case timeline, timelineDays = "timeline.days"
        case users, userAdd = "user.add", userPassword = "user.passwd", userRole = "user.role", userRemove =
            "user.remove"
        case userToken = "user.token", userRevokeTokens = "user.revoke_tokens"
    }

    /// Every wire name, for `unknown_command` answers; `events` is the subscription, not a command.
    public static let names = Name.allCases.map(\.rawValue) + ["events"]
}

/// What `export` joins: `group`, or the clips that meet [`from`, `to`] (of `camera`, if given).
public struct ExportRequest: Sendable, Equatable {
    public var from: Date?
    public var to: Date?
    public var camera: String?
    public var group: String?
    public var title: String?
    /// Only the clips of this channel (`[[channel]]`): a range that holds clips of several channels (pictures of
    /// different sizes, which cannot be joined into one file) needs it.
    public var channel: String?

    public init(
        from: Date? = nil, to: Date? = nil, camera: String? = nil, group: String? = nil, title: String? = nil,
        channel: String? = nil
    ) {
        (self.from, self.to, self.camera, self.group, self.title, self.channel) = (
            from, to, camera, group, title, channel
        )
    }
}

/// What a filtered `list` keeps: titles containing `search`, clips started in [`from`, `to`).
public struct ListFilter: Sendable, Equatable {
    public var search: String?
    public var from: Date?
    public var to: Date?
    /// Only the clips of this channel (`[[channel]]`).
    public var channel: String?

    public init(search: String? = nil, from: Date? = nil, to: Date? = nil, channel: String? = nil) {
        (self.search, self.from, self.to, self.channel) = (search, from, to, channel)
    }

    public var isEmpty: Bool { (search ?? "").isEmpty && from == nil && to == nil && (channel ?? "").isEmpty }
}

extension Command.Name {
    /// Whether only an admin may send it: everything that changes a recording, a clip, a camera, the backup queue or
    /// an account, and what shows share links or accounts. A viewer may read, and take a snapshot of the live picture.
    public var needsAdmin: Bool {
        switch self {
        case .ping, .version, .status, .snapshot, .list, .info, .cameras, .backupStatus, .metrics, .activity,
            .activityShow,
            .timeline, .timelineDays:
            false
        case .recordStart, .recordStop, .recordToggle, .rename, .delete, .lock, .unlock, .switchCamera, .backupRetry,
            .protect,
            .export, .share, .shares, .unshare, .activityMark, .activityProtect, .users, .userAdd, .userPassword,
            .userRole,
            .userRemove, .userToken, .userRevokeTokens, .discoverCameras, .play:
            true
        }
    }
}
