import ApplianceProtocol
import Foundation
import FrontEndInterface
import Hummingbird

/// `/s/<token>`: a share link's page, its video and its thumbnail, without a login, for that one clip only. An
/// expired, revoked or made-up token is 404, the same answer for each, so tokens cannot be probed.
extension Routes {
    func addShares(to router: GuardedRouter) {
        router.get("s/:token") { _, ctx -> Response in
            let token = try ctx.parameters.require("token")
            let (link, recording) = try await shared(token)
            return HTML.response(Pages.share(token: token, link: link, recording: recording))
        }
        for method in [HTTPRequest.Method.get, .head] {
            router.on("s/:token/video", method: method) { request, ctx -> Response in
                let (_, recording) = try await shared(try ctx.parameters.require("token"))
                return try video(recording, request: request)
            }
            router.on("s/:token/thumbnail", method: method) { request, ctx -> Response in
                let (_, recording) = try await shared(try ctx.parameters.require("token"))
                guard let thumbnail = recording.thumbnail else { throw WebError(.notFound, "no thumbnail") }
                return try MediaResponder.respond(to: request, path: thumbnail, contentType: "image/jpeg")
            }
        }
    }

    private func shared(_ token: String) async throws -> (ShareLink, Recording) {
        guard let link = try await context.media.share(token: token),
            let recording = try await context.media.recording(id: link.recordingId)
        else {
            throw WebError(.notFound, "this link has expired, was revoked, or never existed")
        }
        return (link, recording)
    }
}
