import ApplianceCore
import Foundation
import Hummingbird

/// `/login` (the form and its POST) and `/logout`. A right password makes a session cookie; a wrong one waits
/// (the throttle) before the answer. The password is never logged.
extension Routes {
    func addLogin(to router: Router<WebContext>) {
        router.get("login") { request, _ -> Response in
            HTML.response(Pages.login(error: nil, next: Self.safeNext(request.uri.queryParameters.get("next")),
                                      passwordSet: access.password != nil, fingerprint: context.reporter.current?.fingerprint))
        }
        router.post("login") { request, ctx -> Response in
            var request = request
            let body: ByteBuffer
            body = try await JSONBody.collect(&request, upTo: ctx.maxUploadSize)
            let form = Self.form(String(decoding: body.readableBytesView, as: UTF8.self))
            let next = Self.safeNext(form["next"])
            guard let password = access.password else {
                return Response(status: .seeOther, headers: [.location: next])  // no password: nothing to log in to
            }
            await access.throttle.waitForTurn(client: ctx.client)
            guard let candidate = form["password"], password.matches(candidate) else {
                await access.throttle.failed(client: ctx.client)
                context.logger.warning("web: failed login", metadata: ["client": "\(ctx.client)"])
                return HTML.response(Pages.login(error: "Wrong password.", next: next, passwordSet: true,
                                                 fingerprint: context.reporter.current?.fingerprint), status: .unauthorized)
            }
            access.throttle.succeeded(client: ctx.client)
            let session = access.sessions.create()
            let secure = request.headers[.applianceTransport] == ConnectionTransport.tls.rawValue
            return Response(status: .seeOther, headers: [.location: next, .setCookie: SessionStore.cookie(for: session, secure: secure)])
        }
        router.post("logout") { request, ctx -> Response in
            if let id = request.cookies[SessionStore.cookieName]?.value { access.sessions.remove(id) }
            return Response(status: .seeOther, headers: [.location: "/login", .setCookie: SessionStore.clearingCookie])
        }
    }

    /// Where to go after logging in: a path on this site only (`/x`, never `//host` or a URL).
    static func safeNext(_ next: String?) -> String {
        // Browsers drop tabs and newlines from a URL before reading it: "/\t/evil" would become "//evil".
        guard let next, next.hasPrefix("/"), !next.hasPrefix("//"), !next.contains("\\"), next.count < 2000,
              !next.unicodeScalars.contains(where: { $0.properties.isWhitespace || $0.properties.generalCategory == .control }) else { return "/" }
        return next
    }

    /// `application/x-www-form-urlencoded`.
    static func form(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ s: Substring) -> String { String(s).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            if let key = parts.first { fields[decode(key)] = parts.count > 1 ? decode(parts[1]) : "" }
        }
        return fields
    }
}
