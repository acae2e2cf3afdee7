import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// WS-Discovery for the ONVIF device: joins 239.255.255.250 on the interfaces `[onvif] listen` allows, says Hello on
/// each once the web server serves, answers Probe and Resolve (once per message id, after a random delay of up to
/// half a second as the standard asks, unicast to the asker), and says Bye at a clean stop. A port that cannot be
/// bound is reported in `status.onvif` and retried; nothing else waits on it.
package struct WSDiscoveryService: Service {
    package static let group = "239.255.255.250"
    package static let retryInterval = Duration.seconds(5)
    static let maxReplyDelayMs = 500

    package let device: ONVIFDevice
    package let host: String
    package let port: Int
    package let logger: Logger

    package init(device: ONVIFDevice, host: String, port: Int, logger: Logger) {
        self.device = device
        self.host = host
        self.port = port
        self.logger = logger
    }

    private typealias Datagrams = NIOAsyncChannel<AddressedEnvelope<ByteBuffer>, AddressedEnvelope<ByteBuffer>>

    package func run() async throws {
        guard let webPort = await device.webPort() else { return }  // shut down before the web server served
        let messages = WSDiscoveryMessages(
            endpoint: device.link.status.endpoint, instance: Int(Date().timeIntervalSince1970))
        while !Task.isShuttingDownGracefully {
            do {
                try await serve(messages: messages, webPort: webPort)
                return
            } catch {
                device.link.update {
                    $0.discovery = .failed
                    $0.error = "\(error)"
                }
                logger.error(
                    """
                    ONVIF discovery cannot serve on \(host):\(port): \(error); retrying every \
                    \(Self.retryInterval.components.seconds) s
                    """
                )
                try? await Task.sleep(for: Self.retryInterval)
            }
        }
    }

    private func serve(messages: WSDiscoveryMessages, webPort: Int) async throws {
        let channel: Datagrams = try await DatagramBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.socketOption(.so_reuseaddr), value: 1)
            .channelOption(.receivePacketInfo, value: true)
            .bind(host: "0.0.0.0", port: port) { channel in
                channel.eventLoop.makeCompletedFuture { try Datagrams(wrappingChannelSynchronously: channel) }
            }
        let interfaces = DiscoveryInterfaces.allowed(host: host)
        let joined = await join(channel.channel, interfaces)
        let bound = channel.channel.localAddress?.port ?? port
        let responder = DiscoveryResponder(
            messages: messages, scopes: await device.scopes(), interfaces: interfaces,
            webHost: device.config.web.hostAndPort?.host ?? "0.0.0.0", webPort: webPort)
        device.link.update {
            $0.discovery = .serving
            $0.error = nil
            $0.listen = "\(host):\(bound)"
            $0.interfaces = interfaces.map(\.name)
        }
        logger.info(
            "ONVIF discovery serving",
            metadata: ["listen": "\(host):\(bound)", "interfaces": "\(joined.map(\.name).joined(separator: ","))"])
        try await channel.executeThenClose { inbound, outbound in
            await announce(channel.channel, outbound, joined) { responder.hello(on: $0) }
            try await withThrowingDiscardingTaskGroup { group in
                for try await datagram in inbound.cancelOnGracefulShutdown() {
                    guard let (reply, to) = responder.reply(to: datagram) else { continue }
                    group.addTask {
                        try? await Task.sleep(for: .milliseconds(Int.random(in: 0...Self.maxReplyDelayMs)))
                        try? await outbound.write(AddressedEnvelope(remoteAddress: to, data: ByteBuffer(bytes: reply)))
                    }
                }
            }
            await announce(channel.channel, outbound, joined) { _ in responder.bye() }
        }
    }

    /// Joins the group on each interface that can multicast; those that cannot still answer unicast probes.
    private func join(_ channel: any Channel, _ interfaces: [NetworkInterface]) async -> [NetworkInterface] {
        guard let multicast = channel as? MulticastChannel, let devices = try? System.enumerateDevices() else {
            return []
        }
        let group = try! SocketAddress(ipAddress: Self.group, port: port)
        var joined: [NetworkInterface] = []
        for interface in interfaces where interface.canMulticast {
            guard
                let nioDevice = devices.first(where: {
                    $0.name == interface.name && $0.address?.ipAddress == interface.address
                })
            else { continue }
            do {
                try await multicast.joinGroup(group, device: nioDevice).get()
                joined.append(interface)
            } catch {
                logger.warning("ONVIF discovery cannot join \(Self.group) on \(interface.name): \(error)")
            }
        }
        return joined
    }

    /// Sends one multicast message out of each joined interface.
    private func announce(
        _ channel: any Channel, _ outbound: NIOAsyncChannelOutboundWriter<AddressedEnvelope<ByteBuffer>>,
        _ interfaces: [NetworkInterface], _ message: (NetworkInterface) -> Data
    ) async {
        guard let options = channel as? SocketOptionProvider,
            let group = try? SocketAddress(ipAddress: Self.group, port: port)
        else { return }
        for interface in interfaces {
            var address = in_addr()
            inet_pton(AF_INET, interface.address, &address)
            do {
                try await options.setIPMulticastIF(address).get()
                try await outbound.write(
                    AddressedEnvelope(remoteAddress: group, data: ByteBuffer(bytes: message(interface))))
            } catch {
                logger.warning("ONVIF discovery cannot announce on \(interface.name): \(error)")
            }
        }
    }
}

/// Which interfaces discovery serves: every one that is up for a wildcard, else the one holding the address.
package enum DiscoveryInterfaces {
    package static func allowed(host: String, all: [NetworkInterface] = NetworkInterface.current())
        -> [NetworkInterface]
    {
        host == "0.0.0.0" ? all.filter(\.isUp) : all.filter { $0.address == host }
    }
}
