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
/// (device, media and event services and PullPoint subscriptions), checks WS-UsernameToken (user `appliance` with the
/// `[web] token_file` password as a digest, or an account's name and password as PasswordText over HTTPS;
/// GetSystemDateAndTime is open, as clients ask it to learn the clock before they sign), and holds the subscriptions
/// the event feed fills.
public final class ONVIFDevice: Sendable {
    /// What a SOAP request gets: an HTTP status and a SOAP 1.2 envelope.
    public struct Reply: Sendable {
        public enum Credentials: Sendable { case accepted, refused, notChecked }
        public var status: Int
        public var body: Data
        /// Whether the request's credentials were checked and how it went (for the web server's throttle).
        public var credentials: Credentials = .notChecked
        /// The user name the request's token carried, when it had one (for the refusal's event).
        public var user: String? = nil
        public static let contentType = "application/soap+xml; charset=utf-8"
    }

    package let config: ApplianceConfig
    /// The views of the config of the channels after the first (a media profile each).
    package let channels: [ApplianceConfig]
    package let verifier: UsernameTokenVerifier?
    /// The accounts (PasswordText over HTTPS); nil in tests of the token_file alone.
    package let accounts: ONVIFAccounts?
    package let link: ONVIFLink
    package var subscriptions: PullPointSubscriptions { link.subscriptions }
    package let serial: String
    private let status: @Sendable () async -> StatusReport?
    private let logger: Logger

    /// `password`: the token_file's (PasswordDigest, user `appliance`); nil only on loopback without a token file (the
    /// config refuses anything else), where, until an account exists, every request is answered and tokens ignored.
    package init(
        config: ApplianceConfig, password: Password?, accounts: ONVIFAccounts? = nil, link: ONVIFLink, serial: String,
        logger: Logger, channels: [ApplianceConfig] = [], status: @escaping @Sendable () async -> StatusReport?
    ) {
        (self.config, self.channels) = (config, channels)
        self.accounts = accounts
        verifier = password.map { UsernameTokenVerifier(user: ApplianceConfig.RTSP.user, password: $0.secret) }
        (self.link, self.serial, self.logger, self.status) = (link, serial, logger, status)
    }

    func currentStatus() async -> StatusReport? { await status() }

    /// The web server's bound port, once it serves (nil if shutdown comes first).
    package func webPort() async -> Int? {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            if let url = await status()?.web?.url, let port = URLComponents(string: url)?.port {
                link.update {
                    $0.deviceService =
                        """
                        http://\(HostAddress.shown(config.web.hostAndPort?.host ?? "0.0.0.0")):\(port)/onvif/\
                        device_service
                        """
                }
                return port
            }
            try? await Task.sleep(for: .milliseconds(200))
        }
        return nil
    }

    /// The discovery scopes (name, hardware, MAC, kinds of stream).
    package func scopes() async -> [String] {
        guard let report = await status() else { return [] }
        return ONVIFFacts(
            config: config, status: report, host: "", webPort: 0, serial: serial, interfaces: NetworkInterface.current()
        ).scopes
    }

    /// Answers a SOAP request to `path` (`/onvif/device_service`, `/onvif/pullpoint/ID`, …) that reached this
    /// device as `host` (the Host header without the port) on the web server's `port`; `overTLS`: it came over HTTPS.
    public func respond(path: String, body: Data, host: String, port: Int, client: String, overTLS: Bool = false) async
        -> Reply
    {
        var credentials = Reply.Credentials.notChecked
        var user: String?
        do {
            let envelope: XMLTree
            do { envelope = try XMLTree.parse(body) } catch { throw SOAPFault.malformed(error.description) }
            guard envelope.name == "Envelope", envelope.namespace == ONVIFNamespace.soap,
                let operation = envelope.child("Body", in: ONVIFNamespace.soap)?.children.first
            else {
                throw SOAPFault.malformed("not a SOAP 1.2 envelope with a body")
            }
            let needsLogin = verifier != nil || accounts?.exist() == true
            if needsLogin && !(operation.namespace == ONVIFNamespace.device && operation.name == "GetSystemDateAndTime")
            {
                credentials = .refused
                let header = envelope.child("Header", in: ONVIFNamespace.soap)
                user = header?.child("Security", in: ONVIFNamespace.security)?.child(
                    "UsernameToken", in: ONVIFNamespace.security)?.value("Username")
                let role = try await authenticate(header, client: client, operation: operation.name, overTLS: overTLS)
                credentials = .accepted
                if role < .admin && !Self.viewerMay(operation.name) {
                    throw SOAPFault.notAuthorized(
                        "\(operation.name) needs the admin role (\"\(user ?? "")\" is a viewer)")
                }
            }
            let element = try await dispatch(path: path, operation: operation, host: host, port: port, overTLS: overTLS)
            return Reply(status: 200, body: XMLWriter.envelope(body: [element]), credentials: credentials, user: user)
        } catch let fault as SOAPFault {
            return Reply(status: fault.httpStatus, body: fault.envelope, credentials: credentials, user: user)
        } catch {
            return Reply(
                status: 500, body: SOAPFault(.receiver, "ter:Action", "\(error)").envelope, credentials: credentials,
                user: user)
        }
    }

    /// What a viewer may ask: reading (every `Get…`) and following events.
    static func viewerMay(_ operation: String) -> Bool {
        operation.hasPrefix("Get")
            || ["CreatePullPointSubscription", "PullMessages", "Renew", "Unsubscribe", "SetSynchronizationPoint"]
                .contains(operation)
    }

    /// The role the request's UsernameToken gives: an account's name and password sent as PasswordText (over HTTPS
    /// only), or the token_file's password as a PasswordDigest (user `appliance`, admin).
    private func authenticate(_ header: XMLTree?, client: String, operation: String, overTLS: Bool)
        async throws(SOAPFault) -> UserRole
    {
        do throws(SOAPFault) {
            if let plain = try UsernameToken.plain(header: header) {
                guard overTLS else { throw SOAPFault.notAuthorized("a PasswordText token is accepted over HTTPS only") }
                guard let accounts, let role = await accounts.verify(plain.username, plain.password) else {
                    throw SOAPFault.notAuthorized("wrong user name or password")
                }
                return role
            }
            guard let verifier else {
                throw SOAPFault.notAuthorized(
                    """
                    accounts sign with PasswordText over HTTPS (PasswordDigest is for user appliance, [web] \
                    token_file)
                    """
                )
            }
            try verifier.verify(try UsernameToken.from(header: header))
            return .admin
        } catch {
            logger.warning("ONVIF \(operation) from \(client) refused: \(error.reason)")
            throw error
        }
    }

    private func dispatch(path: String, operation: XMLTree, host: String, port: Int, overTLS: Bool)
        async throws(SOAPFault) -> XMLElement
    {
        let now = Date()
        if path.hasPrefix("/onvif/pullpoint/") {
            let id = String(path.dropFirst("/onvif/pullpoint/".count))
            return try await ONVIFEventService.respond(
                subscription: id, operation.name, namespace: operation.namespace, request: operation,
                subscriptions: subscriptions, now: now)
        }
        guard let report = await status() else {
            throw SOAPFault(.receiver, "ter:Action", "the appliance is not ready yet")
        }
        var facts = ONVIFFacts(
            config: config, status: report, host: host, webPort: port, serial: serial,
            interfaces: NetworkInterface.current(), channels: channels)
        facts.requestOverTLS = overTLS
        // By the operation's namespace, not the path: GetServiceCapabilities is in all three services.
        switch operation.namespace {
        case ONVIFNamespace.device: return try ONVIFDeviceService.respond(operation.name, facts: facts, now: now)
        case ONVIFNamespace.media:
            return try ONVIFMediaService.respond(operation.name, request: operation, facts: facts)
        case ONVIFNamespace.events:
            return try ONVIFEventService.respond(
                operation.name, request: operation, facts: facts, subscriptions: subscriptions, now: now)
        default: throw SOAPFault.notImplemented("{\(operation.namespace)}\(operation.name)")
        }
    }
}

/// The accounts as ONVIF asks them: an account's name and plain password checked (its role, or nil), and whether
/// any account exists (then every request but GetSystemDateAndTime needs a login).
public struct ONVIFAccounts: Sendable {
    public let verify: @Sendable (_ name: String, _ password: String) async -> UserRole?
    public let exist: @Sendable () -> Bool

    public init(verify: @escaping @Sendable (String, String) async -> UserRole?, exist: @escaping @Sendable () -> Bool)
    {
        (self.verify, self.exist) = (verify, exist)
    }
}
