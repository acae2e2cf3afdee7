import Accounts
import ApplianceProtocol
import Hummingbird
import Logging
import NIOCore

/// The request context: who is asking (set by `AccessMiddleware`) and from where.
struct WebContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's address without the port, for slowing down failed logins per client.
    let client: String
    /// Whether the peer is this machine (nil: no network peer, the in-process tests): with no account and no
    /// token_file, only this machine is served.
    let peerIsLoopback: Bool?
    var access: Access = .anonymous

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        client = source.channel.remoteAddress?.ipAddress ?? "unknown"
        peerIsLoopback = source.channel.remoteAddress.map { AccessMiddleware.isLoopbackAddress($0.ipAddress ?? "") }
    }

    /// Large bodies are refused before they are read (commands and logins are small).
    var maxUploadSize: Int { 64 * 1024 }
}

/// Who is asking, as far as the request showed (what they may do is the route's `RouteRequirement`).
enum Access: Sendable, Equatable {
    /// No login: only the login page, assets and share links.
    case anonymous
    /// `[web] public_read` without a login: pages, GET API and media, as a viewer; no commands.
    case readOnly
    /// A browser session (commands need its CSRF token).
    case session(Session)
    /// `Authorization`: Basic (name and password) or Bearer (an API token); no CSRF token needed (no browser sends
    /// it by itself).
    case credential(Identity)

    var canRead: Bool { self != .anonymous }
    var session: Session? { if case .session(let s) = self { s } else { nil } }
    var identity: Identity? {
        switch self {
        case .session(let session): session.identity
        case .credential(let identity): identity
        case .anonymous, .readOnly: nil
        }
    }
    /// What the request may do: a viewer's reading for public_read, the account's role otherwise.
    var role: UserRole? { self == .readOnly ? .viewer : identity?.role }
}
