import ApplianceProtocol
import Foundation
import Logging
import ServiceLifecycle
#if canImport(FoundationXML)
import FoundationXML
import ApplianceBase
import Settings
#endif

/// The appliance as an ONVIF Profile S device: answers the SOAP requests the web server receives under `/onvif/`
/// (device, media and event services and PullPoint subscriptions), checks WS-UsernameToken (user `appliance`, the
/// `[web] token_file` password; GetSystemDateAndTime is open, as clients ask it to learn the clock before they
/// sign), and holds the subscriptions the event feed fills.
public final class ONVIFDevice: Sendable {
    /// What a SOAP request gets: an HTTP status and a SOAP 1.2 envelope.
    public struct Reply: Sendable {
        public enum Credentials: Sendable { case accepted, refused, notChecked }
        public var status: Int
        public var body: Data
        /// Whether the request's credentials were checked and how it went (for the web server's throttle).
        public var credentials: Credentials = .notChecked
        public static let contentType = "application/soap+xml; charset=utf-8"
    }

    package let config: ApplianceConfig
    package let verifier: UsernameTokenVerifier?
    package let link: ONVIFLink
    package var subscriptions: PullPointSubscriptions { link.subscriptions }
    package let serial: String
    private let status: @Sendable () async -> StatusReport?
    private let logger: Logger

    /// `password`: nil only on loopback without a token file (the config refuses anything else), where every
    /// request is answered and tokens are ignored.
    package init(config: ApplianceConfig, password: Password?, link: ONVIFLink, serial: String, logger: Logger,
         status: @escaping @Sendable () async -> StatusReport?) {
        self.config = config
        verifier = password.map { UsernameTokenVerifier(user: ApplianceConfig.RTSP.user, password: $0.secret) }
        (self.link, self.serial, self.logger, self.status) = (link, serial, logger, status)
    }

    func currentStatus() async -> StatusReport? { await status() }

    /// The web server's bound port, once it serves (nil if shutdown comes first).
    package func webPort() async -> Int? {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if let url = await status()?.web?.url, let port = URLComponents(string: url)?.port {
                link.update { $0.deviceService = "http://\(HostAddress.shown(config.web.hostAndPort?.host ?? "0.0.0.0")):\(port)/onvif/device_service" }
                return port
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return nil
    }

    /// The discovery scopes (name, hardware, MAC, kinds of stream).
    package func scopes() async -> [String] {
        guard let report = await status() else { return [] }
        return ONVIFFacts(config: config, status: report, host: "", webPort: 0, serial: serial, interfaces: NetworkInterface.current()).scopes
    }

    /// Answers a SOAP request to `path` (`/onvif/device_service`, `/onvif/pullpoint/ID`, …) that reached this
    /// device as `host` (the Host header without the port) on the web server's `port`.
    public func respond(path: String, body: Data, host: String, port: Int, client: String) async -> Reply {
        var credentials = Reply.Credentials.notChecked
        do {
            let envelope: XMLTree
            do { envelope = try XMLTree.parse(body) } catch { throw SOAPFault.malformed(error.description) }
            guard envelope.name == "Envelope", envelope.namespace == ONVIFNamespace.soap,
                  let operation = envelope.child("Body", in: ONVIFNamespace.soap)?.children.first else {
                throw SOAPFault.malformed("not a SOAP 1.2 envelope with a body")
            }
            if verifier != nil && !(operation.namespace == ONVIFNamespace.device && operation.name == "GetSystemDateAndTime") {
                credentials = .refused
                try authenticate(envelope.child("Header", in: ONVIFNamespace.soap), client: client, operation: operation.name)
                credentials = .accepted
            }
            let element = try await dispatch(path: path, operation: operation, host: host, port: port)
            return Reply(status: 200, body: XMLWriter.envelope(body: [element]), credentials: credentials)
        } catch let fault as SOAPFault {
            return Reply(status: fault.httpStatus, body: fault.envelope, credentials: credentials)
        } catch {
            return Reply(status: 500, body: SOAPFault(.receiver, "ter:Action", "\(error)").envelope, credentials: credentials)
        }
    }

    private func authenticate(_ header: XMLTree?, client: String, operation: String) throws(SOAPFault) {
        guard let verifier else { return }
        do {
            try verifier.verify(try UsernameToken.from(header: header))
        } catch {
            logger.warning("ONVIF \(operation) from \(client) refused: \(error.reason)")
            throw error
        }
    }

    private func dispatch(path: String, operation: XMLTree, host: String, port: Int) async throws(SOAPFault) -> XMLElement {
        let now = Date()
        if path.hasPrefix("/onvif/pullpoint/") {
            let id = String(path.dropFirst("/onvif/pullpoint/".count))
            return try await ONVIFEventService.respond(subscription: id, operation.name, namespace: operation.namespace, request: operation,
                                                       subscriptions: subscriptions, now: now)
        }
        guard let report = await status() else { throw SOAPFault(.receiver, "ter:Action", "the appliance is not ready yet") }
        let facts = ONVIFFacts(config: config, status: report, host: host, webPort: port, serial: serial,
                               interfaces: NetworkInterface.current())
        // By the operation's namespace, not the path: GetServiceCapabilities is in all three services.
        switch operation.namespace {
        case ONVIFNamespace.device: return try ONVIFDeviceService.respond(operation.name, facts: facts, now: now)
        case ONVIFNamespace.media: return try ONVIFMediaService.respond(operation.name, request: operation, facts: facts)
        case ONVIFNamespace.events:
            return try ONVIFEventService.respond(operation.name, request: operation, facts: facts, subscriptions: subscriptions, now: now)
        default: throw SOAPFault.notImplemented("{\(operation.namespace)}\(operation.name)")
        }
    }
}
