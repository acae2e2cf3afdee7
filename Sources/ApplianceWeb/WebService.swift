import Accounts
import ApplianceBase
import ApplianceProtocol
import Foundation
import FrontEndInterface
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// Serves the dashboard and the HTTP API on `[web] listen` until graceful shutdown. An address that cannot be
/// bound (taken, not on this machine) is reported in `status.web` and retried every few seconds: the web page
/// failing never stops recording. Long responses (the live view, the event stream) end at shutdown.
final class WebService: Service, CustomStringConvertible {
    var description: String { "WebService(\(context.config.web.listen))" }
    static let retryInterval = Duration.seconds(3)
    let context: FrontEndContext
    let streams: StreamRegistry
    /// The certificate when it serves HTTPS (`[web] tls`); nil for plain HTTP.
    let certificate: ServedCertificate?
    private let responder: RouterResponder<WebContext>
    /// Open connections against the caps, across restarts of the listener.
    let connections = ConnectionCounter(limits: .standard)

    init(context: FrontEndContext, certificate: ServedCertificate?) throws {
        self.context = context
        self.certificate = certificate
        let streams = StreamRegistry()
        self.streams = streams
        responder = try Self.router(context: context, streams: streams).buildResponder()
    }

    /// Every route behind the access rules, for `context`: served by `run`, and driven in-process by the tests
    /// (HummingbirdTesting's router framework), as Hummingbird's own `buildApplication` pattern has it.
    static func router(context: FrontEndContext, streams: StreamRegistry) throws -> Router<WebContext> {
        let web = context.config.web
        let sessions = SessionStore()
        let local = Identity(name: "local", role: .admin, generation: 0)
        let access = AccessMiddleware(
            accounts: context.accounts, sessions: sessions, publicRead: web.publicRead,
            refusals: AuthRefusals(events: context.events, logger: context.logger),
            localSession: sessions.create(for: local))
        let router = Router(context: WebContext.self)
        router.middlewares.add(SecurityHeadersMiddleware())
        if web.servesTLS { router.middlewares.add(SecureTransportMiddleware(plainONVIF: context.onvif != nil)) }
        router.middlewares.add(CrossSiteGuard())
        router.middlewares.add(access)
        let table = RouteTable()
        router.middlewares.add(MethodCheck(table: table))
        Routes(context: context, streams: streams, access: access, table: table).add(
            to: GuardedRouter(router: router, table: table))
        return router
    }

    func run() async throws {
        // Not built when listen is "off"; the config loader has checked host:port.
        guard let (host, port) = context.config.web.hostAndPort else { return }
        let reporter = context.reporter
        let logger = context.logger
        let scheme = certificate == nil ? "http" : "https"
        while !Task.isShuttingDownGracefully {
            let app = Application(
                responder: responder, server: server,
                configuration: .init(address: .hostname(host, port: port), serverName: nil),
                onServerRunning: { channel in
                    let bound = channel.localAddress?.port ?? port
                    let shown = host.contains(":") ? "[\(host)]" : host
                    let url = "\(scheme)://\(shown):\(bound)"
                    reporter.update {
                        $0.state = .serving
                        $0.url = url
                        $0.error = nil
                    }
                    logger.info("web dashboard serving", metadata: ["url": "\(url)"])
                },
                logger: Logger(label: "appliance.web", factory: { _ in SwiftLogNoOpLogHandler() }))
            do {
                try loadCertificate()
                try await withGracefulShutdownHandler {
                    try await app.run()
                } onGracefulShutdown: {
                    self.streams.finishAll()
                }
                return
            } catch {
                let reason = "cannot serve on \(context.config.web.listen): \(error)"
                reporter.update {
                    $0.state = .failed
                    $0.url = nil
                    $0.error = reason
                }
                logger.error("web dashboard \(reason); retrying every \(Self.retryInterval.components.seconds) s")
                try? await Task.sleep(for: Self.retryInterval)
            }
        }
    }
}

extension WebService {
    /// HTTP/1.1, or HTTPS with plain HTTP on the same port redirected; either behind the connection caps and the
    /// idle timeout (`ConnectionLimits`).
    var server: HTTPServerBuilder {
        let counter = connections
        let idle = counter.limits.idleTimeout
        guard let certificate else {
            return HTTPServerBuilder { responder in
                LimitedChannel(
                    inner: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: idle)), counter: counter
                )
            }
        }
        return HTTPServerBuilder { responder in
            LimitedChannel(
                inner: HTTPSChannel(responder: responder, certificate: certificate, idleTimeout: idle), counter: counter
            )
        }
    }

    /// Before serving HTTPS: the certificate, read or made (a failure is reported and retried like a taken address).
    func loadCertificate() throws {
        guard let certificate, certificate.identity == nil else { return }
        let (identity, made) = try certificate.load()
        if made {
            context.logger.notice("web certificate made for \(identity.names.dnsNames + identity.names.ipAddresses)")
        }
        context.logger.info("web certificate SHA-256 fingerprint \(identity.fingerprint)")
    }
}

/// Long-lived responses (live view, event stream) register here so shutdown can end them: the server waits for
/// open responses before it stops.
final class StreamRegistry: Sendable {
    private let onFinish = Locked<[UUID: @Sendable () -> Void]>([:])

    func register(_ finish: @escaping @Sendable () -> Void) -> UUID {
        let id = UUID()
        onFinish.withLock { $0[id] = finish }
        return id
    }

    func unregister(_ id: UUID) { onFinish.withLock { _ = $0.removeValue(forKey: id) } }

    func finishAll() {
        let all = onFinish.withLock { all in
            defer { all.removeAll() }
            return Array(all.values)
        }
        for finish in all { finish() }
    }
}
