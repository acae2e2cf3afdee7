import ApplianceProtocol
import Foundation
import FrontEndInterface
import Hummingbird

/// The pages: live, recordings, a clip, backup & settings; and the two static assets.
extension Routes {
    func addPages(to router: GuardedRouter) {
        // A dashcam (loop recording) opens on its timeline: finding a moment is what its owner comes for.
        router.get("/") { _, ctx -> Response in
            if context.config.recording.segmentS > 0 {
                return Response(status: .seeOther, headers: [.location: "/timeline"])
            }
            return try await livePage(csrf: ctx.access.session?.csrf)
        }
        router.get("live") { _, ctx -> Response in try await livePage(csrf: ctx.access.session?.csrf) }
        router.get("recordings") { request, ctx -> Response in
            let query = request.uri.queryParameters
            let command: Command
            do {
                command = try Self.listCommand(query, grouped: query.get("group") == nil)
            } catch let error as WebError {
                return HTML.response(
                    Pages.error(400, error.message, csrf: ctx.access.session?.csrf), status: .badRequest)
            }
            guard case .list(let list) = try await perform(command) else {
                throw WebError(.internalServerError, "unexpected result")
            }
            let kept = ["q": query.get("q") ?? "", "date": query.get("date") ?? ""]
            return HTML.response(
                Pages.recordings(list: list, group: query.get("group"), query: kept, csrf: ctx.access.session?.csrf))
        }
        router.get("recordings/:id") { request, ctx -> Response in
            let id = try ctx.parameters.require("id")
            let info: RecordingInfo
            do {
                guard case .info(let found) = try await context.perform(.info(id: id)) else {
                    throw WebError(.internalServerError, "unexpected result")
                }
                info = found
            } catch let error as ApplianceError {
                let web = WebError(error)
                return HTML.response(
                    Pages.error(Int(web.status.code), web.message, csrf: ctx.access.session?.csrf), status: web.status)
            }
            guard case .shares(let shares) = try await perform(.shares) else {
                throw WebError(.internalServerError, "unexpected result")
            }
            return HTML.response(
                Pages.clip(
                    info, shares: shares.items.filter { $0.recordingId == info.recording.id },
                    csrf: ctx.access.session?.csrf,
                    start: request.uri.queryParameters.get("t").flatMap(Double.init).flatMap {
                        $0.isFinite && $0 >= 0 ? $0 : nil
                    }))
        }
        router.get("settings") { _, ctx -> Response in
            guard case .backupStatus(let backup) = try await perform(.backupStatus),
                case .shares(let shares) = try await perform(.shares),
                case .users(let users) = try await perform(.users)
            else { throw WebError(.internalServerError, "unexpected result") }
            let config = ConfigView.prettyText(context.config)
            return HTML.response(
                Pages.settings(
                    backup: backup, lastUpload: try await context.media.lastBackup(), config: config,
                    shares: shares.items, accounts: Pages.accounts(users: users, sessions: access.sessions.list()),
                    csrf: ctx.access.session?.csrf))
        }
        router.get("assets/app.css") { _, _ in Assets.response(Assets.css, type: "text/css; charset=utf-8") }
        router.get("assets/app.js") { _, _ in Assets.response(Assets.script, type: "text/javascript; charset=utf-8") }
        router.get("favicon.ico") { _, _ in Response(status: .noContent) }
    }

    func livePage(csrf: String?) async throws -> Response {
        guard case .status(let status) = try await perform(.status) else {
            throw WebError(.internalServerError, "unexpected result")
        }
        return HTML.response(Pages.live(status: status, csrf: csrf, webrtc: context.config.web.webrtcViewers > 0))
    }
}
