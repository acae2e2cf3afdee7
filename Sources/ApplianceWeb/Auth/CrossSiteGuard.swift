import HTTPTypes
import Hummingbird

/// Refuses a state-changing request that a browser sent on behalf of another site, whatever its credentials: a
/// browser resends cached Basic credentials and the session cookie cross-site, so neither proves a request is
/// first-party. The browser says where a request comes from (`Sec-Fetch-Site`; older ones `Origin` only); a
/// client that sends neither is not a browser (curl, an NVR, `appliance ctl` over HTTP) and is judged by its
/// credentials alone. Reading (GET, HEAD, OPTIONS) changes nothing and is not checked here.
struct CrossSiteGuard: RouterMiddleware {
    typealias Context = WebContext
    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!

    func handle(_ request: Request, context: WebContext, next: (Request, WebContext) async throws -> Response)
        async throws -> Response
    {
        if let reason = Self.refusal(
            method: request.method, secFetchSite: request.headers[Self.secFetchSite],
            origin: request.headers[.origin], host: request.head.authority)
        {
            throw WebError(.forbidden, "cross-site request refused: \(reason)")
        }
        return try await next(request, context)
    }

    /// Why a request is refused, or nil. `host`: the request's `Host` (the authority the browser addressed).
    static func refusal(method: HTTPRequest.Method, secFetchSite: String?, origin: String?, host: String?) -> String? {
        guard ![.get, .head, .options].contains(method) else { return nil }
        // A browser that says where the request comes from is believed (it sets the header itself; no page can).
        // Browsers send Sec-Fetch-Site to secure origins only (HTTPS, localhost): over plain HTTP on a LAN address
        // the Origin is what tells. The pages' `Referrer-Policy: same-origin` keeps it their real origin (under
        // `no-referrer` a browser sends `Origin: null` even with a page's own POST; Fetch, "append a request Origin
        // header"), and a cross-site POST still says `null` or its own origin.
        if let site = secFetchSite?.lowercased() {
            guard site == "same-origin" || site == "none" else {
                return "Sec-Fetch-Site is \(site.prefix(40)) (only this dashboard's own pages may change anything)"
            }
            return nil
        }
        guard let origin else { return nil }
        guard let host, let from = Authority(origin: origin), let to = Authority(host: host, scheme: from.scheme),
            from == to
        else {
            return "Origin \(origin.prefix(100)) is not this dashboard (\(host?.prefix(100) ?? "no Host"))"
        }
        return nil
    }

    /// A host and port, lower-cased, with the scheme's default port filled in.
    struct Authority: Equatable {
        var scheme: String
        var host: String
        var port: Int

        /// `https://name:port` as browsers send `Origin` (no path); `null` and anything else: nil.
        init?(origin: String) {
            let lowered = origin.lowercased()
            guard let separator = lowered.range(of: "://") else { return nil }
            let scheme = String(lowered[..<separator.lowerBound])
            guard scheme == "http" || scheme == "https" else { return nil }
            let rest = String(lowered[separator.upperBound...])
            guard !rest.contains("/") || rest.hasSuffix("/") && rest.dropLast().firstIndex(of: "/") == nil else {
                return nil
            }
            self.init(host: rest.hasSuffix("/") ? String(rest.dropLast()) : rest, scheme: scheme)
        }

        /// `name`, `name:port`, `[v6]` or `[v6]:port`; the port defaults to `scheme`'s.
        init?(host authority: String, scheme: String) {
            let text = authority.lowercased()
            var name = text
            var portText: Substring?
            if text.hasPrefix("["), let end = text.firstIndex(of: "]") {
                name = String(text[...end])
                let after = text[text.index(after: end)...]
                if after.hasPrefix(":") { portText = after.dropFirst() } else if !after.isEmpty { return nil }
            } else if let colon = text.lastIndex(of: ":") {
                name = String(text[..<colon])
                portText = text[text.index(after: colon)...]
            }
            guard !name.isEmpty else { return nil }
            let port: Int
            if let portText {
                guard let number = Int(portText), (1...65535).contains(number) else { return nil }
                port = number
            } else {
                port = scheme == "https" ? 443 : 80
            }
            (self.scheme, self.host, self.port) = (scheme, name, port)
        }

        /// The scheme is not compared: the request's own is not known here when plain HTTP and HTTPS share a port
        /// (plain HTTP is redirected there before anything changes).
        static func == (a: Authority, b: Authority) -> Bool { a.host == b.host && a.port == b.port }
    }
}
