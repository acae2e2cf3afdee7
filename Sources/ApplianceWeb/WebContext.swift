import Hummingbird
import Logging
import NIOCore

/// The request context: who is asking (set by `AccessMiddleware`) and from where.
struct WebContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    /// The peer's address without the port, for slowing down failed logins per client.
    let client: String
    var access: Access = .anonymous

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        client = source.channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// Large bodies are refused before they are read (commands and logins are small).
    var maxUploadSize: Int { 64 * 1024 }
}

/// What a request may do.
enum Access: Sendable, Equatable {
    /// No login: only the login page, assets and share links.
    case anonymous
    /// `[web] public_read` without a login: pages, GET API and media; no commands.
    case readOnly
    /// A browser session (commands need its CSRF token).
    case session(Session)
    /// `Authorization: Bearer TOKEN`: everything, no CSRF token needed (no browser sends it by itself).
    case bearer

    var canRead: Bool { self != .anonymous }
    var session: Session? { if case .session(let s) = self { s } else { nil } }
}
