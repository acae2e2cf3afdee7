import Accounts
import ApplianceBase
import Foundation
import FrontEndInterface
import HTTPTypes
import Hummingbird
import Settings

#if canImport(Glibc)
    import Glibc
#endif

/// Decides who is asking: the login page, assets and share links are open; reading needs a session, an
/// `Authorization` header (HTTP Basic with an account's name and password, or a bearer API token; the `[web]
/// token_file` password as the admin `appliance` either way) or `[web] public_read`; anything that changes state
/// needs a session with its CSRF token (header `X-CSRF-Token`) or the header. Pages answer a missing login with a
/// redirect to /login, the API and media with 401. What each role may do is the routes' (`RoutePolicy`).
struct AccessMiddleware: RouterMiddleware {
    typealias Context = WebContext
    let accounts: AccountBook
    let sessions: SessionStore
    let publicRead: Bool
    let refusals: AuthRefusals
    /// With no account and no token_file (loopback only) every local client acts as this one admin session; its CSRF
    /// token is in the pages, which other sites cannot read.
    let localSession: Session

    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    /// No account and no token_file yet: the dashboard answers this machine only, without a login.
    var isLocalOnly: Bool { !accounts.hasAccounts && !accounts.hasTokenFile }

    func handle(_ request: Request, context: WebContext, next: (Request, WebContext) async throws -> Response)
        async throws -> Response
    {
        let path = request.uri.path
        if Self.isOpen(path) { return try await next(request, context) }
        do {
            return try await checked(request, context: context, next: next)
        } catch let error as HTTPError where error.status == .notFound && path.hasPrefix("/api/") {
            throw WebError(.notFound, "no such API route: \(request.method) \(path)")  // JSON, like every API error
        }
    }

    private func checked(_ request: Request, context: WebContext, next: (Request, WebContext) async throws -> Response)
        async throws -> Response
    {
        let path = request.uri.path
        var context = context
        context.access = try await access(for: request, context: context)
        let reading = request.method == .get || request.method == .head
        guard context.access.canRead else {
            if reading && Self.isPage(path) {
                let target = request.uri.string
                return Response(
                    status: .seeOther,
                    headers: [
                        .location: "/login?next="
                            + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/")
                    ])
            }
            var error = WebError(
                .unauthorized, "log in first, or send Authorization: Basic (name and password) or Bearer (an API token)"
            )
            // The snapshot's clients (NVRs) speak Basic; a browser's fetch must not pop up a password dialog.
            error.extraHeaders[.wwwAuthenticate] =
                path == "/live.jpg" ? "Basic realm=\"appliance\"" : "Bearer realm=\"appliance\""
            throw error
        }
        if !reading {
            switch context.access {
            case .credential: break
            case .session(let session):
                guard let sent = request.headers[Self.csrfHeader], RandomToken.equal(sent, session.csrf) else {
                    throw WebError(.forbidden, "missing or wrong CSRF token (header X-CSRF-Token)")
                }
            case .readOnly, .anonymous:
                throw WebError(.unauthorized, "log in to change anything (public_read opens reading only)")
            }
        }
        return try await next(request, context)
    }

    private func access(for request: Request, context: WebContext) async throws -> Access {
        if let authorization = request.headers[.authorization] {
            return .credential(try await check(authorization, client: context.client))
        }
        if isLocalOnly {
            // No password: only this machine may connect (the listen address may be any: the first account is made
            // with `ctl user add` on the device); a name that is not loopback means DNS rebinding.
            guard context.peerIsLoopback != false, Self.isLoopbackHost(request.head.authority) else {
                throw WebError(
                    .forbidden,
                    """
                    this dashboard answers only to 127.0.0.1 and localhost until an account exists (appliance ctl \
                    user add)
                    """
                )
            }
            return .session(localSession)
        }
        if let id = request.cookies[SessionStore.cookieName]?.value, let session = sessions.find(id) {
            if let identity = accounts.current(session.identity) { return .session(session.with(identity)) }
            sessions.remove(id)  // the account is gone, or its password changed since this login
        }
        if publicRead && (request.method == .get || request.method == .head) { return .readOnly }
        return .anonymous
    }

    /// An `Authorization` header's identity. Credentials that passed a full check lately are taken as they are (a
    /// browser or NVR sends them with every request); any other goes through the guessing ledger.
    private func check(_ authorization: String, client: String) async throws -> Identity {
        let credentials = Self.credentials(authorization)
        switch credentials {
        case .basic(let name, let password)?:
            if let known = accounts.recentlyVerified(name: name, password: password) { return known }
        case .bearer(let token)?: if let known = accounts.recentlyVerified(token: token) { return known }
        case nil: break
        }
        let identity = try await attempt(
            door: "web", client: client, account: credentials?.name, reason: "wrong name, password or token"
        ) {
            switch credentials {
            case .basic(let name, let password)?: await accounts.verify(name: name, password: password)
            case .bearer(let token)?: await accounts.verify(token: token)
            case nil: nil
            }
        }
        guard let identity else { throw WebError(.unauthorized, "wrong name, password or token") }
        return identity
    }

    /// What `Authorization` carries: `Bearer TOKEN`, or `Basic` with a name and password (what cameras' snapshot
    /// clients and `curl -u` send).
    enum Credentials: Equatable {
        case basic(name: String, password: String)
        case bearer(String)
        var name: String? { if case .basic(let name, _) = self { name } else { nil } }
    }

    static func credentials(_ authorization: String) -> Credentials? {
        let lowered = authorization.lowercased()
        if lowered.hasPrefix("bearer ") {
            return .bearer(String(authorization.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces))
        }
        guard lowered.hasPrefix("basic "),
            let decoded = Data(
                base64Encoded: String(authorization.dropFirst("basic ".count)).trimmingCharacters(in: .whitespaces)),
            let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":")
        else { return nil }
        return .basic(name: String(text[..<colon]), password: String(text[text.index(after: colon)...]))
    }

    /// Routes anyone may use (ONVIF's SOAP checks its own credentials).
    static func isOpen(_ path: String) -> Bool {
        path == "/login" || path.hasPrefix("/assets/") || path.hasPrefix("/s/") || path == "/favicon.ico"
            || path.hasPrefix("/onvif/")
    }

    /// Routes a browser navigates to (a missing login redirects instead of 401).
    static func isPage(_ path: String) -> Bool {
        !(path.hasPrefix("/api/") || path.hasPrefix("/media/") || path == "/live.mjpeg" || path == "/live.jpg"
            || path == "/metrics")
    }

    /// A peer address on this machine: 127.0.0.0/8, ::1, or an IPv4-mapped 127 address.
    static func isLoopbackAddress(_ address: String) -> Bool {
        let bare = address.hasPrefix("::ffff:") ? String(address.dropFirst("::ffff:".count)) : address
        if bare == "::1" { return true }
        var ipv4 = in_addr()
        return inet_pton(AF_INET, bare, &ipv4) == 1 && UInt32(bigEndian: ipv4.s_addr) >> 24 == 127
    }

    static func isLoopbackHost(_ authority: String?) -> Bool {
        guard let authority else { return true }  // HTTP/1.0 without Host
        var host = authority
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") {
            host = String(host[host.index(after: host.startIndex)..<end])
        } else if let colon = host.lastIndex(of: ":") {
            host = String(host[..<colon])
        }
        if host == "localhost" || host == "::1" { return true }
        // An IPv4 address in 127.0.0.0/8, parsed as an address: `127.0.0.1.evil.example` is a name, not loopback.
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { return false }
        return UInt32(bigEndian: address.s_addr) >> 24 == 127
    }
}
