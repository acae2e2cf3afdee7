import ApplianceBase
import Foundation
import FrontEndInterface
import HTTPTypes
import Hummingbird
import NIOCore
import ONVIF

/// `/onvif/…`: the ONVIF device's SOAP services (device, media, events, and each PullPoint subscription's address),
/// open to the access rules because SOAP carries its own credentials (WS-UsernameToken, checked by `ONVIFDevice`);
/// failed ones are slowed down per client like logins. `/live.jpg`: the live picture as one JPEG, the snapshot
/// URI ONVIF hands out (clients fetch it with HTTP Basic: user `appliance`, the password); `?channel=NAME`: that
/// channel's (each ONVIF profile's snapshot).
extension Routes {
    func addONVIF(to router: GuardedRouter) {
        if let device = context.onvif {
            for path in WebPaths.soapPaths {
                router.post(RouterPath(stringLiteral: path)) { request, ctx in try await soap(device, request, ctx) }
            }
            router.post("onvif/pullpoint/:id") { request, ctx in try await soap(device, request, ctx) }
        }
        router.get("live.jpg") { request, _ -> Response in
            let live = try self.liveChannel(request).live
            let (id, frames) = live.watch()
            defer { live.stop(id) }
            let frame = await withTaskGroup(of: LiveFrame?.self) { group in
                group.addTask { await frames.first { _ in true } }
                group.addTask {
                    try? await Task.sleep(for: .seconds(5))
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            guard let frame else { throw WebError(.serviceUnavailable, "no live picture within 5 s") }
            return Response(
                status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: "no-store"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: frame.jpeg)))
        }
    }

    private func soap(_ device: ONVIFDevice, _ request: Request, _ ctx: WebContext) async throws -> Response {
        var request = request
        let authority = request.head.authority
        // Without a password only this machine may ask (the peer's address, as for the dashboard); a Host that is not
        // loopback means DNS rebinding.
        if access.isLocalOnly && (ctx.peerIsLoopback == false || !AccessMiddleware.isLoopbackHost(authority)) {
            throw WebError(.forbidden, "this device answers only to 127.0.0.1 and localhost")
        }
        let body = try await JSONBody.collect(&request, upTo: ctx.maxUploadSize)
        let (host, port) = Self.hostAndPort(
            authority, fallbackPort: context.reporter.current?.url.flatMap { URLComponents(string: $0)?.port } ?? 80)
        // A request with a UsernameToken is a credential check, counted in the guessing ledger; one without (the
        // calls ONVIF leaves open, a first GetSystemDateAndTime) guesses nothing.
        let credentialed = body.readableBytesView.firstRange(of: Array("UsernameToken".utf8)) != nil
        if credentialed { try await access.begin(client: ctx.client, account: nil) }
        let overTLS = request.headers[.applianceTransport] == ConnectionTransport.tls.rawValue
        let reply = await device.respond(
            path: request.uri.path, body: Data(body.readableBytesView), host: host, port: port,
            client: ctx.client, overTLS: overTLS)
        if credentialed {
            switch reply.credentials {
            case .refused:
                await access.end(
                    door: "onvif", client: ctx.client, account: reply.user, reason: "UsernameToken refused",
                    passed: false)
            case .accepted:
                await access.end(door: "onvif", client: ctx.client, account: reply.user, reason: "", passed: true)
            case .notChecked: context.accounts.guesses.abandoned(client: ctx.client, account: nil)
            }
        }
        return Response(
            status: HTTPResponse.Status(code: reply.status),
            headers: [.contentType: ONVIFDevice.Reply.contentType, .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
    }

    /// The host and port the client reached, from its Host header.
    static func hostAndPort(_ authority: String?, fallbackPort: Int) -> (String, Int) {
        guard let authority, !authority.isEmpty else { return ("127.0.0.1", fallbackPort) }
        if authority.hasPrefix("["), let end = authority.firstIndex(of: "]") {
            let host = String(authority[authority.index(after: authority.startIndex)..<end])
            let rest = authority[authority.index(after: end)...]
            return (host, rest.hasPrefix(":") ? Int(rest.dropFirst()) ?? fallbackPort : 80)
        }
        guard let colon = authority.lastIndex(of: ":") else { return (authority, 80) }
        return (String(authority[..<colon]), Int(authority[authority.index(after: colon)...]) ?? fallbackPort)
    }
}
