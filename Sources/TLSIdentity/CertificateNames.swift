import Foundation

/// The names a browser may use to reach the device, which its own certificate must list (subject alternative names):
/// its host name, `hostname.local` (mDNS), and every address it listens on (all of this machine's addresses when it
/// listens on a wildcard). A name missing here is a certificate error in the browser however the user trusts it.
package struct CertificateNames: Sendable, Equatable {
    package var dnsNames: [String]
    /// Dotted IPv4 or IPv6 text, as `inet_pton` reads it.
    package var ipAddresses: [String]

    package init(dnsNames: [String], ipAddresses: [String]) {
        self.dnsNames = Self.unique(dnsNames.map { $0.lowercased() }.filter { !$0.isEmpty })
        self.ipAddresses = Self.unique(ipAddresses.filter { IPAddressBytes.parse($0) != nil })
    }

    /// For a server on `listenHost`: the host name and its `.local` form, and the listen address itself, or each of
    /// `interfaceAddresses` for a wildcard. A host given by name is a DNS name.
    package static func forListening(on listenHost: String, hostName: String, interfaceAddresses: [String])
        -> CertificateNames
    {
        let host = listenHost.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let short = hostName.split(separator: ".").first.map(String.init) ?? hostName
        var dns = [hostName, short, short + ".local"].filter { !$0.isEmpty && $0 != ".local" }
        var ips: [String] = []
        if host == "0.0.0.0" || host == "::" {
            ips = interfaceAddresses
            dns.append("localhost")
        } else if IPAddressBytes.parse(host) != nil {
            ips = [host]
        } else {
            dns.insert(host, at: 0)
        }
        return CertificateNames(dnsNames: dns, ipAddresses: ips)
    }

    /// Every name of `other` is here too (a certificate made for these names serves `other`).
    package func covers(_ other: CertificateNames) -> Bool {
        Set(other.dnsNames).isSubset(of: Set(dnsNames))
            && Set(other.ipAddresses.compactMap(IPAddressBytes.parse))
                .isSubset(of: Set(ipAddresses.compactMap(IPAddressBytes.parse)))
    }

    private static func unique(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }
    }
}

/// An IP address's network bytes (4 for IPv4, 16 for IPv6), as a certificate's iPAddress name holds them.
package enum IPAddressBytes {
    package static func parse(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }

    package static func text(_ bytes: [UInt8]) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        let family = bytes.count == 4 ? AF_INET : bytes.count == 16 ? AF_INET6 : -1
        guard family != -1,
            bytes.withUnsafeBytes({ inet_ntop(family, $0.baseAddress, &buffer, socklen_t(buffer.count)) }) != nil
        else {
            return nil
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
