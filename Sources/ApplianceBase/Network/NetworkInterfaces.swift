import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// This machine's IPv4 interfaces as ONVIF reports them (GetNetworkInterfaces) and WS-Discovery announces them: name,
/// hardware address, IPv4 address and prefix, whether it is up, loopback, and can multicast.
public struct NetworkInterface: Sendable, Equatable {
    public var name: String
    public var index: Int
    /// `aa:bb:cc:dd:ee:ff`, lower case; nil when the kernel shows none (or all zeros, as on loopback).
    public var mac: String?
    public var address: String
    public var prefixLength: Int
    public var isUp: Bool
    public var isLoopback: Bool
    public var canMulticast: Bool

    package init(
        name: String, index: Int, mac: String? = nil, address: String, prefixLength: Int, isUp: Bool, isLoopback: Bool,
        canMulticast: Bool
    ) {
        self.name = name
        self.index = index
        self.mac = mac
        self.address = address
        self.prefixLength = prefixLength
        self.isUp = isUp
        self.isLoopback = isLoopback
        self.canMulticast = canMulticast
    }

    /// Every interface with an IPv4 address, in the kernel's order.
    public static func current(sysfs: String = "/sys/class/net") -> [NetworkInterface] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(list) }
        var found: [NetworkInterface] = []
        for entry in sequence(first: first, next: { $0.pointee.ifa_next }) {
            let e = entry.pointee
            guard let socketAddress = e.ifa_addr, socketAddress.pointee.sa_family == sa_family_t(AF_INET) else {
                continue
            }
            let name = String(cString: e.ifa_name)
            let flags = Int32(bitPattern: e.ifa_flags)
            let address = ipv4(socketAddress)
            let mask = e.ifa_netmask.map(ipv4Bits) ?? 0
            let mac = (try? String(contentsOfFile: "\(sysfs)/\(name)/address", encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            found.append(
                NetworkInterface(
                    name: name, index: Int(if_nametoindex(name)),
                    mac: mac.flatMap { $0.isEmpty || $0 == "00:00:00:00:00:00" ? nil : $0 },
                    address: address, prefixLength: mask.nonzeroBitCount, isUp: flags & Int32(IFF_UP) != 0,
                    isLoopback: flags & Int32(IFF_LOOPBACK) != 0, canMulticast: flags & Int32(IFF_MULTICAST) != 0))
        }
        return found
    }

    /// The interface that names this device to NVRs (its MAC is the device's identity in Home Assistant and UniFi):
    /// the first that is up, not loopback, and has a hardware address.
    public static func primary(_ all: [NetworkInterface]) -> NetworkInterface? {
        all.first { $0.isUp && !$0.isLoopback && $0.mac != nil } ?? all.first { $0.mac != nil }
    }

    private static func ipv4(_ pointer: UnsafeMutablePointer<sockaddr>) -> String {
        pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
            var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
            var address = inet.pointee.sin_addr
            inet_ntop(AF_INET, &address, &text, socklen_t(INET_ADDRSTRLEN))
            return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    private static func ipv4Bits(_ pointer: UnsafeMutablePointer<sockaddr>) -> UInt32 {
        pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
    }
}
