import ApplianceBase
import Foundation
import NIOCore

/// Decides what WS-Discovery sends: a reply to a Probe or Resolve that asks for this device, arriving on an allowed
/// interface and not seen before (clients repeat each multicast Probe up to four times with the same message id),
/// and the Hello and Bye. The device address handed out is the web server's on the interface the asker can reach.
package final class DiscoveryResponder: Sendable {
    static let rememberedMessages = 64

    package let messages: WSDiscoveryMessages
    package let scopes: [String]
    package let interfaces: [NetworkInterface]
    package let webHost: String
    package let webPort: Int
    private let state = Locked((seen: [String](), number: 0))

    package init(
        messages: WSDiscoveryMessages, scopes: [String], interfaces: [NetworkInterface], webHost: String, webPort: Int
    ) {
        (self.messages, self.scopes, self.interfaces, self.webHost, self.webPort) = (
            messages, scopes, interfaces, webHost, webPort
        )
    }

    /// The reply to a datagram and where it goes (the asker's own address and port), or nil.
    package func reply(to datagram: AddressedEnvelope<ByteBuffer>) -> (Data, SocketAddress)? {
        let arrivedOn = datagram.metadata?.packetInfo?.interfaceIndex
        if let arrivedOn, !interfaces.contains(where: { $0.index == arrivedOn }) { return nil }
        guard let request = WSDiscoveryMessages.parse(Data(datagram.data.readableBytesView)) else { return nil }
        let sender = datagram.remoteAddress.ipAddress ?? ""
        let xaddrs = deviceService(for: sender, arrivedOn: arrivedOn)
        switch request {
        case .probe(let id, let types, let wanted, let matchBy):
            guard WSDiscoveryMessages.matches(types: types, scopes: wanted, matchBy: matchBy, ours: scopes),
                firstTime(id)
            else { return nil }
            return (
                messages.probeMatches(relatesTo: id, scopes: scopes, xaddrs: xaddrs, number: next()),
                datagram.remoteAddress
            )
        case .resolve(let id, let endpoint):
            guard endpoint == messages.endpoint, firstTime(id) else { return nil }
            return (
                messages.resolveMatches(relatesTo: id, scopes: scopes, xaddrs: xaddrs, number: next()),
                datagram.remoteAddress
            )
        }
    }

    package func hello(on interface: NetworkInterface) -> Data {
        messages.hello(scopes: scopes, xaddrs: deviceService(on: interface), number: next())
    }

    package func bye() -> Data { messages.bye(number: next()) }

    /// `http://ADDRESS:PORT/onvif/device_service` with the web server's own address, or, when it listens on every
    /// address, the address of the interface in the asker's subnet (else the one the probe came in on).
    package func deviceService(for sender: String, arrivedOn: Int?) -> String {
        let interface =
            interfaces.first { Self.sameSubnet($0, sender) } ?? interfaces.first { $0.index == arrivedOn }
            ?? interfaces.first
        return interface.map(deviceService(on:)) ?? "http://\(webHost):\(webPort)/onvif/device_service"
    }

    private func deviceService(on interface: NetworkInterface) -> String {
        let wildcard = webHost == "0.0.0.0" || webHost == "::" || webHost == "[::]"
        return "http://\(wildcard ? interface.address : HostAddress.shown(webHost)):\(webPort)/onvif/device_service"
    }

    private func firstTime(_ id: String) -> Bool {
        state.withLock { s in
            if s.seen.contains(id) { return false }
            s.seen.append(id)
            if s.seen.count > Self.rememberedMessages { s.seen.removeFirst() }
            return true
        }
    }

    private func next() -> Int {
        state.withLock { s in
            s.number += 1
            return s.number
        }
    }

    private static func sameSubnet(_ interface: NetworkInterface, _ address: String) -> Bool {
        var a = in_addr()
        var b = in_addr()
        guard inet_pton(AF_INET, interface.address, &a) == 1, inet_pton(AF_INET, address, &b) == 1 else { return false }
        let mask: UInt32 = interface.prefixLength == 0 ? 0 : ~UInt32(0) << (32 - UInt32(interface.prefixLength))
        return UInt32(bigEndian: a.s_addr) & mask == UInt32(bigEndian: b.s_addr) & mask
    }
}
