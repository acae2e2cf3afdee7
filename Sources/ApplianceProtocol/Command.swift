/// Everything a front end can ask of the appliance. The socket, `appliance ctl`, the web page, the shutters and
/// the timers all send these to one entry point (`Appliance.perform`) and get a `CommandResult` or an
/// `ApplianceError` back; JSON exists only where a command crosses a process boundary.
public enum Command: Sendable, Equatable {
    case ping
    case status
    case recordStart(title: String?)
    case recordStop(title: String?)
    case snapshot
    case list(page: Int, perPage: Int)
    case info(id: String)
    case rename(id: String, title: String)
    case delete(id: String, force: Bool)
    case lock(id: String)
    case unlock(id: String)
    case cameras
    case switchCamera(CameraChoice)
    case backupStatus
    case backupRetry(id: String?)
    /// Locks every clip that overlaps [now − before, now + after] (seconds), with the reason "event"; loop
    /// segments still to come in that window are locked as they start.
    case protect(before: Double, after: Double)

    /// Which camera a switch goes to.
    public enum CameraChoice: Sendable, Equatable {
        case named(String)
        /// The next usable camera after the active one.
        case next
    }

    public static let defaultPerPage = 10
    /// `protect` without arguments: 10 s before and 10 s after.
    public static let defaultProtectWindow = 10.0

    /// The command's name on the wire (docs/PROTOCOL.md).
    public var name: String {
        switch self {
        case .ping: "ping"
        case .status: "status"
        case .recordStart: "record.start"
        case .recordStop: "record.stop"
        case .snapshot: "snapshot"
        case .list: "list"
        case .info: "info"
        case .rename: "rename"
        case .delete: "delete"
        case .lock: "lock"
        case .unlock: "unlock"
        case .cameras: "cameras"
        case .switchCamera: "switch"
        case .backupStatus: "backup.status"
        case .backupRetry: "backup.retry"
        case .protect: "protect"
        }
    }

    /// Every wire name, for `unknown_command` answers; `events` is the subscription, not a command.
    public static let names = [
        "ping", "status", "record.start", "record.stop", "snapshot", "list", "info", "rename", "delete", "lock",
        "unlock", "events", "cameras", "switch", "backup.status", "backup.retry", "protect",
    ]
}
