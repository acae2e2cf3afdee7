import ApplianceCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import HTTPTypes
import Hummingbird
import ApplianceBase
import Settings

/// Decides who is asking and whether they may: the login page, assets and share links are open; reading needs a
/// session, the bearer token or `[web] public_read`; anything that changes state needs a session with its CSRF
/// token (header `X-CSRF-Token`) or the bearer token. Pages answer a missing login with a redirect to /login, the
/// API and media with 401.
struct AccessMiddleware: RouterMiddleware {
    typealias Context = WebContext
    let password: Password?
    let sessions: SessionStore
    let throttle: LoginThrottle
    let publicRead: Bool
    /// With no token_file (loopback only) every local client acts as this one session; its CSRF token is in the
    /// pages, which other sites cannot read.
    let localSession: Session?

    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!

    func handle(_ request: Request, context: WebContext, next: (Request, WebContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        if Self.isOpen(path) { return try await next(request, context) }
        do {
            return try await checked(request, context: context, next: next)
        } catch let error as HTTPError where error.status == .notFound && path.hasPrefix("/api/") {
            throw WebError(.notFound, "no such API route: \(request.method) \(path)")  // JSON, like every API error
        }
    }

    private func checked(_ request: Request, context: WebContext, next: (Request, WebContext) async throws -> Response) async throws -> Response {
        let path = request.uri.path
        var context = context
        context.access = try await access(for: request, client: context.client)
        let reading = request.method == .get || request.method == .head
        guard context.access.canRead else {
            if reading && Self.isPage(path) {
                let target = request.uri.string
                return Response(status: .seeOther, headers: [.location: "/login?next=" + (target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/")])
            }
            var error = WebError(.unauthorized, "log in first, or send Authorization: Bearer TOKEN")
            // The snapshot's clients (NVRs) speak Basic; a browser's fetch must not pop up a password dialog.
            error.extraHeaders[.wwwAuthenticate] = path == "/live.jpg" ? "Basic realm=\"appliance\"" : "Bearer realm=\"appliance\""
            throw error
        }
        if !reading {
            switch context.access {
            case .bearer: break
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

    private func access(for request: Request, client: String) async throws -> Access {
        if let authorization = request.headers[.authorization] {
            await throttle.waitForTurn(client: client)
            guard let password, Self.credentials(authorization).map(password.matches) == true else {
                await throttle.failed(client: client)
                throw WebError(.unauthorized, "wrong bearer token or password")
            }
            throttle.succeeded(client: client)
            return .bearer
        }
        if let localSession {
            // No password: only this machine may connect; a name that is not loopback means DNS rebinding.
            guard Self.isLoopbackHost(request.head.authority) else {
                throw WebError(.forbidden, "this dashboard answers only to 127.0.0.1 and localhost")
            }
            return .session(localSession)
        }
        if let id = request.cookies[SessionStore.cookieName]?.value, let session = sessions.find(id) { return .session(session) }
        if publicRead && (request.method == .get || request.method == .head) { return .readOnly }
        return .anonymous
    }

    /// The password in `Authorization`: `Bearer TOKEN`, or `Basic` with user `appliance` (what cameras' snapshot
    /// clients and `curl -u` send).
    static func credentials(_ authorization: String) -> String? {
        let lowered = authorization.lowercased()
        if lowered.hasPrefix("bearer ") { return String(authorization.dropFirst("bearer ".count)).trimmingCharacters(in: .whitespaces) }
        guard lowered.hasPrefix("basic "),
              let decoded = Data(base64Encoded: String(authorization.dropFirst("basic ".count)).trimmingCharacters(in: .whitespaces)),
              let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":"),
              text[..<colon] == ApplianceConfig.RTSP.user else { return nil }
        return String(text[text.index(after: colon)...])
    }

    /// Routes anyone may use (ONVIF's SOAP checks its own credentials).
    static func isOpen(_ path: String) -> Bool {
        path == "/login" || path.hasPrefix("/assets/") || path.hasPrefix("/s/") || path == "/favicon.ico" || path.hasPrefix("/onvif/")
    }

    /// Routes a browser navigates to (a missing login redirects instead of 401).
    static func isPage(_ path: String) -> Bool {
        !(path.hasPrefix("/api/") || path.hasPrefix("/media/") || path == "/live.mjpeg" || path == "/live.jpg" || path == "/metrics")
    }

    static func isLoopbackHost(_ authority: String?) -> Bool {
        guard let authority else { return true }  // HTTP/1.0 without Host
        var host = authority
        if host.hasPrefix("["), let end = host.firstIndex(of: "]") { host = String(host[host.index(after: host.startIndex)..<end]) }
        else if let colon = host.lastIndex(of: ":") { host = String(host[..<colon]) }
        if host == "localhost" || host == "::1" { return true }
        // An IPv4 address in 127.0.0.0/8, parsed as an address: `127.0.0.1.evil.example` is a name, not loopback.
        var address = in_addr()
        guard inet_pton(AF_INET, host, &address) == 1 else { return false }
        return UInt32(bigEndian: address.s_addr) >> 24 == 127
    }
}
