import ApplianceBase
import ApplianceProtocol
import Foundation
import FrontEndInterface
import HTTPTypes
import Hummingbird
import NIOCore

/// WHEP (RFC 9725), the live page's WebRTC: `POST /api/whep` with an SDP offer (`application/sdp`) answers 201 with
/// the SDP answer (every ICE candidate in it: no trickle) and `Location: /api/whep/<id>`; `DELETE` there ends the
/// session. `?sound=off` on the POST starts the session without audio and `POST /api/whep/<id>/sound` with
/// `{"on": true|false}` turns it on or off (the live page: muted until a click, so a viewer who never listens costs
/// no audio). `?channel=NAME` on the POST watches that channel (none: the first; the live page's grid has a session
/// per channel, Talk on the first's). Writes, so the same access rules as every other one: the session's CSRF
/// token, or the bearer password.
extension Routes {
    func addWHEP(to router: GuardedRouter) {
        let webrtc = context.channels
        router.post("api/whep") { request, ctx -> Response in
            guard request.headers[.contentType]?.lowercased().hasPrefix(WebPaths.sdpType) == true else {
                throw WebError(.unsupportedMediaType, "a WHEP offer is sent as \(WebPaths.sdpType)")
            }
            var request = request
            let body = try await JSONBody.collect(&request, upTo: ctx.maxUploadSize)
            let offer = String(decoding: body.readableBytesView, as: UTF8.self)
            let sound: Bool
            switch request.uri.queryParameters.get("sound") {
            case nil, "on": sound = true
            case "off": sound = false
            case let other?: throw WebError(.badRequest, "sound is on or off, not \(other)")
            }
            let channel = try Self.channel(request, among: webrtc.names)
            let answer: WHEPAnswer
            do {
                answer = try await webrtc.answer(offer: offer, sound: sound, channel: channel)
            } catch let error as ApplianceError {
                throw WebError(error)
            }
            return Response(
                status: .created,
                headers: [
                    .contentType: WebPaths.sdpType, .location: "/api/whep/\(answer.id)", .cacheControl: "no-store",
                ],
                body: ResponseBody(byteBuffer: ByteBuffer(string: answer.sdp)))
        }
        addSwitch("sound", to: router) { try await webrtc.setSound($0, on: $1) }
        // Talk (admins): {"on": true} while the Talk button is held. 409 while another viewer talks.
        addSwitch("talk", to: router) { try await webrtc.setTalk($0, on: $1) }
        router.delete("api/whep/:id") { _, ctx -> Response in
            do {
                try await webrtc.end(try ctx.parameters.require("id"))
            } catch let error as ApplianceError {
                throw WebError(error)
            }
            return Response(status: .ok)
        }
    }

    /// `POST /api/whep/<id>/<name>` with `{"on": true|false}`: a session's switch (its sound, its Talk).
    private func addSwitch(
        _ name: String, to router: GuardedRouter,
        _ set: @escaping @Sendable (String, Bool) async throws -> Void
    ) {
        router.post(RouterPath("api/whep/:id/\(name)")) { request, ctx -> Response in
            let id = try ctx.parameters.require("id")
            guard case .bool(let on)? = try await JSONBody.arguments(request, context: ctx)["on"] else {
                throw WebError(.badRequest, "send {\"on\": true} or {\"on\": false}")
            }
            do {
                try await set(id, on)
            } catch let error as ApplianceError {
                throw WebError(error)
            }
            return Response(status: .ok)
        }
    }
}
