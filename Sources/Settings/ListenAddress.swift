import ApplianceBase

/// A `listen = "host:port"` setting, as `[web]` and `[rtsp]` take it.
public enum ListenAddress {
    /// The host and port (IPv6 in brackets: `[::1]:8080`); nil when malformed.
    public static func parse(_ listen: String) -> (host: String, port: Int)? {
        guard let colon = listen.lastIndex(of: ":") else { return nil }
        var host = String(listen[..<colon])
        guard let port = Int(listen[listen.index(after: colon)...]), (0...65535).contains(port), !host.isEmpty else {
            return nil
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }

    /// Only this machine can reach the host.
    public static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
