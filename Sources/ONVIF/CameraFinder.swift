import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import NIOCore
import NIOPosix

/// Finds ONVIF cameras on the network, the client side of what `WSDiscoveryService` answers: a WS-Discovery Probe for
/// `dn:NetworkVideoTransmitter` sent from each interface allowed, the ProbeMatches heard within the time given (one
/// entry per device, by endpoint); then, with an account, each device's stream addresses (`ONVIFClient`).
package enum CameraFinder {
    package static func find(_ request: CameraDiscoveryRequest, interfaces: [NetworkInterface], logger: Logger) async
        -> CameraDiscovery
    {
        let usable = interfaces.filter { $0.isUp && $0.canMulticast && !$0.isLoopback }
        let heard = Locked<[String: DiscoveredCamera]>([:])
        await withTaskGroup(of: Void.self) { group in
            for interface in usable {
                group.addTask {
                    do {
                        try await probe(from: interface, seconds: request.seconds) { match in
                            heard.withLock { if $0[match.endpoint] == nil { $0[match.endpoint] = match } }
                        }
                    } catch {
                        logger.warning("camera discovery cannot probe from \(interface.name): \(error)")
                    }
                }
            }
        }
        var cameras = heard.withLock { Array($0.values) }.sorted { $0.address < $1.address }
        if let user = request.username, let password = request.password {
            cameras = await withTaskGroup(of: DiscoveredCamera.self) { group in
                for camera in cameras {
                    group.addTask { await ONVIFClient.streams(of: camera, user: user, password: password.text) }
                }
                return await group.reduce(into: []) { $0.append($1) }.sorted { $0.address < $1.address }
            }
        }
        return CameraDiscovery(cameras: cameras, interfaces: usable.map(\.name))
    }

    private typealias Datagrams = NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>

    /// Sends one Probe to the group out of `interface` and hands each ProbeMatch heard on it until `seconds` pass.
    private static func probe(
        from interface: NetworkInterface, seconds: Double, found: @escaping @Sendable (DiscoveredCamera) -> Void
    ) async throws {
        let channel: Datagrams = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: interface.address, port: 0) { channel in
                channel.eventLoop.makeCompletedFuture { try Datagrams(wrappingChannelSynchronously: channel) }
            }
        var address = in_addr()
        inet_pton(AF_INET, interface.address, &address)
        if let options = channel.channel as? SocketOptionProvider { try await options.setIPMulticastIF(address).get() }
        let group = try SocketAddress(ipAddress: WSDiscoveryService.group, port: 3702)
        try await channel.executeThenClose { inbound, outbound in
            try await outbound.write(AddressedEnvelope(remoteAddress: group, data: ByteBuffer(bytes: probeMessage())))
            await withTaskGroup(of: Void.self) { listening in
                listening.addTask {
                    do {
                        for try await datagram in inbound {
                            for match in matches(in: Data(datagram.data.readableBytesView)) { found(match) }
                        }
                    } catch {}
                }
                listening.addTask { try? await Task.sleep(for: .milliseconds(Int(seconds * 1000))) }
                await listening.next()
                listening.cancelAll()
            }
        }
    }

    static func probeMessage(id: UUID = UUID()) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <s:Envelope xmlns:s="http://www.w3.org/2003/05/soap-envelope" \
            xmlns:a="http://schemas.xmlsoap.org/ws/2004/08/addressing" \
            xmlns:d="http://schemas.xmlsoap.org/ws/2005/04/discovery" \
            xmlns:dn="http://www.onvif.org/ver10/network/wsdl">\
            <s:Header><a:Action s:mustUnderstand="1">http://schemas.xmlsoap.org/ws/2005/04/discovery/Probe</a:Action>\
            <a:MessageID>urn:uuid:\(id.uuidString.lowercased())</a:MessageID>\
            <a:ReplyTo><a:Address>\(WSDiscoveryMessages.anonymous)</a:Address></a:ReplyTo>\
            <a:To s:mustUnderstand="1">urn:schemas-xmlsoap-org:ws:2005:04:discovery</a:To></s:Header>\
            <s:Body><d:Probe><d:Types>dn:NetworkVideoTransmitter</d:Types></d:Probe></s:Body></s:Envelope>
            """.utf8)
    }

    /// The devices a ProbeMatches message names (none for anything else: a Probe, a Hello, garbage).
    static func matches(in data: Data) -> [DiscoveredCamera] {
        guard let envelope = try? XMLTree.parse(data), let body = envelope.child("Body"),
            let matches = body.child("ProbeMatches")
        else { return [] }
        return matches.children.filter { $0.name == "ProbeMatch" }.compactMap { match in
            let addresses = (match.value("XAddrs") ?? "").split(separator: " ").map(String.init)
            guard let address = addresses.first(where: { $0.hasPrefix("http") }) else { return nil }
            let scopes = (match.value("Scopes") ?? "").split(whereSeparator: \.isWhitespace).map(String.init)
            return DiscoveredCamera(
                address: address, endpoint: match.value("EndpointReference", "Address") ?? address,
                name: scope("name", in: scopes), hardware: scope("hardware", in: scopes))
        }
    }

    /// The value of an ONVIF scope such as onvif://www.onvif.org/name/Front%20door ("Front door").
    static func scope(_ kind: String, in scopes: [String]) -> String? {
        let prefix = "onvif://www.onvif.org/\(kind)/"
        return scopes.first { $0.hasPrefix(prefix) }.map {
            String($0.dropFirst(prefix.count)).removingPercentEncoding ?? String($0.dropFirst(prefix.count))
        }
    }
}
