import Foundation

/// The host part of a URL this machine serves on, as a client elsewhere would type it.
package enum HostAddress {
    /// `listen`'s host, except that a wildcard (`0.0.0.0`, `::`) becomes this machine's first non-loopback IPv4
    /// address (or its host name): a URL with `0.0.0.0` in it plays nowhere. IPv6 literals get their brackets.
    package static func shown(_ host: String) -> String {
        let wildcard = host == "0.0.0.0" || host == "::" || host == "[::]"
        let chosen = wildcard ? (firstIPv4() ?? ProcessInfo.processInfo.hostName) : host
        return chosen.contains(":") && !chosen.hasPrefix("[") ? "[\(chosen)]" : chosen
    }

    private static func firstIPv4() -> String? {
        NetworkInterface.current().first { $0.isUp && !$0.isLoopback }?.address
    }
}
