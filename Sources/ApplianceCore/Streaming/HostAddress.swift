import Foundation

/// The host part of a URL this machine serves on, as a client elsewhere would type it.
enum HostAddress {
    /// `listen`'s host, except that a wildcard (`0.0.0.0`, `::`) becomes this machine's first non-loopback IPv4
    /// address (or its host name): a URL with `0.0.0.0` in it plays nowhere. IPv6 literals get their brackets.
    static func shown(_ host: String) -> String {
        let wildcard = host == "0.0.0.0" || host == "::" || host == "[::]"
        let chosen = wildcard ? (firstIPv4() ?? ProcessInfo.processInfo.hostName) : host
        return chosen.contains(":") && !chosen.hasPrefix("[") ? "[\(chosen)]" : chosen
    }

    private static func firstIPv4() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return nil }
        defer { freeifaddrs(list) }
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let flags = Int32(entry.pointee.ifa_flags)
            guard let address = entry.pointee.ifa_addr, address.pointee.sa_family == sa_family_t(AF_INET),
                  flags & Int32(IFF_UP) != 0, flags & Int32(IFF_LOOPBACK) == 0 else { continue }
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var inet = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &inet, &text, socklen_t(text.count)) != nil else { continue }
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return nil
    }
}
