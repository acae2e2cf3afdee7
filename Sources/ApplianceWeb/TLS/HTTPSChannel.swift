import ApplianceBase
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import NIOSSL

/// HTTP/1.1 over TLS, with plain HTTP on the same port told apart by the first byte (a TLS record starts with 0x16,
/// an HTTP request with a letter). A TLS connection gets the certificate served now; a plain one reaches the app
/// marked as plain, where `SecureTransportMiddleware` answers with a redirect to HTTPS (ONVIF's SOAP excepted).
struct HTTPSChannel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value
    let responder: HTTPChannelHandler.Responder
    let certificate: ServedCertificate
    /// A connection with no request (a TLS handshake that stalls included) is closed after this long.
    let idleTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let transport = Locked(ConnectionTransport.unknown)
        let http = HTTP1Channel(
            responder: responder,
            configuration: .init(
                additionalChannelHandlers: [TransportMarker(transport: transport)],
                idleTimeout: idleTimeout))
        return channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(TLSSniffer(certificate: certificate, transport: transport))
        }.flatMap {
            http.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await HTTP1Channel(responder: responder).handle(value: value, logger: logger)
    }
}

/// How a connection reached the dashboard's port.
enum ConnectionTransport: String, Sendable {
    case unknown, tls, plain
}

extension HTTPField.Name {
    /// Set on every request of a TLS-capable server to how it came (`tls` or `plain`), replacing whatever the client
    /// sent under that name: the app cannot see the connection, only the request.
    static let applianceTransport = HTTPField.Name("X-Appliance-Transport")!
}

/// Reads the first bytes of a connection: a TLS handshake gets NIOSSL put in front of HTTP, anything else passes
/// as plain. Then it leaves the pipeline.
final class TLSSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    private let certificate: ServedCertificate
    private let transport: Locked<ConnectionTransport>

    init(certificate: ServedCertificate, transport: Locked<ConnectionTransport>) {
        self.certificate = certificate
        self.transport = transport
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        guard let first = bytes.getInteger(at: bytes.readerIndex, as: UInt8.self) else { return }
        if first == 0x16 {
            guard let served = certificate.context else {  // not loaded yet: the server is not bound either
                context.close(promise: nil)
                return
            }
            do {
                try context.pipeline.syncOperations.addHandler(
                    NIOSSLServerHandler(context: served), position: .after(self))
            } catch {
                context.close(promise: nil)
                return
            }
            transport.withLock { $0 = .tls }
        } else {
            transport.withLock { $0 = .plain }
        }
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}

/// Writes the connection's transport into each request head (see `HTTPField.Name.applianceTransport`).
final class TransportMarker: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    private let transport: Locked<ConnectionTransport>

    init(transport: Locked<ConnectionTransport>) {
        self.transport = transport
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var part = unwrapInboundIn(data)
        if case .head(var head) = part {
            head.headerFields[.applianceTransport] = transport.withLock { $0 }.rawValue
            part = .head(head)
        }
        context.fireChannelRead(wrapInboundOut(part))
    }
}
