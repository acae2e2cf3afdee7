import Accounts
import Foundation
import FrontEndInterface
import Hummingbird

/// `/login` (the form and its POST) and `/logout`. A right password makes a session cookie; a wrong one waits
/// (the guessing ledger, `AccessMiddleware.attempt`) before the answer. The password is never logged.
extension Routes {
    func addLogin(to router: GuardedRouter) {
        router.get("login") { request, _ -> Response in
            HTML.response(
                Pages.login(
                    error: nil, next: Self.safeNext(request.uri.queryParameters.get("next")),
                    passwordSet: !access.isLocalOnly, fingerprint: context.reporter.current?.fingerprint))
        }
        router.post("login") { request, ctx -> Response in try await login(request, ctx) }
        router.post("logout") { request, ctx -> Response in
            if let id = request.cookies[SessionStore.cookieName]?.value { access.sessions.remove(id) }
            return Response(status: .seeOther, headers: [.location: "/login", .setCookie: SessionStore.clearingCookie])
        }
    }

    /// The form's name (empty: `appliance`, the token_file password's) and password: a session cookie, or the form
    /// again after the guessing ledger's wait. The password is never logged.
    private func login(_ request: Request, _ ctx: WebContext) async throws -> Response {
        var request = request
        let body = try await JSONBody.collect(&request, upTo: ctx.maxUploadSize)
        let form = Self.form(String(decoding: body.readableBytesView, as: UTF8.self))
        let next = Self.safeNext(form["next"])
        guard !access.isLocalOnly else {
            // no account, no password: nothing to log in to
            return Response(status: .seeOther, headers: [.location: next])
        }
        let name = (form["user"] ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        let user = name.isEmpty ? AccountRules.tokenFileName : name
        let checked: Identity?
        do {
            checked = try await access.attempt(
                door: "web", client: ctx.client, account: user, reason: "wrong name or password at login"
            ) {
                guard let password = form["password"] else { return nil }
                return await context.accounts.verify(name: user, password: password)
            }
        } catch let refused as WebError {
            return HTML.response(
                Pages.login(
                    error: refused.message, next: next, passwordSet: true,
                    fingerprint: context.reporter.current?.fingerprint), status: refused.status)
        }
        guard let identity = checked else {
            return HTML.response(
                Pages.login(
                    error: "Wrong name or password.", next: next, passwordSet: true,
                    fingerprint: context.reporter.current?.fingerprint), status: .unauthorized)
        }
        await context.accounts.recordLogin(identity)
        access.refusals.accepted(door: "web", client: ctx.client, user: identity.name)
        let session = access.sessions.create(for: identity, client: ctx.client)
        let secure = request.headers[.applianceTransport] == ConnectionTransport.tls.rawValue
        return Response(
            status: .seeOther,
            headers: [.location: next, .setCookie: SessionStore.cookie(for: session, secure: secure)])
    }

    /// Where to go after logging in: a path on this site only (`/x`, never `//host` or a URL).
    static func safeNext(_ next: String?) -> String {
        // Browsers drop tabs and newlines from a URL before reading it: "/\t/evil" would become "//evil".
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"), next.count < 2000,
            !next.unicodeScalars.contains(where: {
                $0.properties.isWhitespace || $0.properties.generalCategory == .control
            })
        else { return "/" }
        return next
    }

    /// `application/x-www-form-urlencoded`.
    static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String {
                String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if let key = parts.first { fields[decode(key)] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        return fields
    }
}
