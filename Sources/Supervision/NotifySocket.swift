#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// systemd's notify protocol without libsystemd: each message is one datagram of `KEY=value` lines sent to the
/// AF_UNIX socket named by `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace). That is all
/// `sd_notify(3)` does; a library would add a dependency (and a package dependency) for twenty lines.
public final class NotifySocket: Sendable {
    public let path: String
    private let fd: Int32

    /// Opens a datagram socket for `path`; nil if the path cannot be an AF_UNIX address or no socket opens.
    public init?(path: String) {
        guard !path.isEmpty, path.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path),
            path.hasPrefix("/") || path.hasPrefix("@")
        else { return nil }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return nil }
        (self.path, self.fd) = (path, fd)
    }

    deinit { close(fd) }

    /// Sends one message (`READY=1\nSTATUS=…`); false if the datagram could not be sent. Never blocks for long:
    /// a datagram to a socket nobody reads fails at once (or is dropped by the kernel).
    @discardableResult
    public func send(_ message: String) -> Bool {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }  // abstract namespace: a leading NUL, and no terminating one counted
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        let payload = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                payload.withUnsafeBytes { body in
                    sendto(fd, body.baseAddress, body.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT), sa, length)
                }
            }
        }
        return sent == payload.count
    }
}

/// What systemd told this process through its environment: where to send notifications and, with `WatchdogSec=`,
/// how often it expects a sign of life.
public struct ServiceManager: Sendable {
    public let socket: NotifySocket
    /// `WATCHDOG_USEC`, when set for this process (`WATCHDOG_PID` absent or ours).
    public let watchdogInterval: Duration?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID`, then removes them from the environment (as
    /// `sd_notify` with `unset_environment` does): processes the daemon starts, such as GStreamer's plugin
    /// scanner, must not notify in its name. `manager` is nil when not started by a service manager; `problems`
    /// says what was set but unusable (the daemon warns and runs on without it).
    public static func fromEnvironment() -> (manager: ServiceManager?, problems: [String]) {
        func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
        defer { for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { unsetenv(name) } }
        guard let path = variable("NOTIFY_SOCKET"), !path.isEmpty else { return (nil, []) }
        guard let socket = NotifySocket(path: path) else {
            return (
                nil,
                [
                    """
                    NOTIFY_SOCKET=\(path) is not an AF_UNIX socket address (an absolute path or @name); not \
                    notifying systemd
                    """
                ]
            )
        }
        var problems: [String] = []
        var interval: Duration?
        if let text = variable("WATCHDOG_USEC") {
            let pid = variable("WATCHDOG_PID")
            if let usec = UInt64(text), usec > 0 {
                if pid == nil || pid == "\(getpid())" { interval = .microseconds(usec) }
            } else {
                problems.append("WATCHDOG_USEC=\(text) is not a number of microseconds; no watchdog pings")
            }
        }
        return (ServiceManager(socket: socket, watchdogInterval: interval), problems)
    }

    public init(socket: NotifySocket, watchdogInterval: Duration?) {
        (self.socket, self.watchdogInterval) = (socket, watchdogInterval)
    }
}
