import ApplianceProtocol
import Foundation
import FrontEndInterface
import Hummingbird

/// Clips, thumbnails and snapshots by id (never by path), through `MediaResponder`. `?download=1` asks for an
/// attachment named after the clip's title.
extension Routes {
    func addMedia(to router: GuardedRouter) {
        for method in [HTTPRequest.Method.get, .head] {
            router.on("media/:id/video", method: method) { request, ctx -> Response in
                let recording = try await recording(try ctx.parameters.require("id"))
                return try video(recording, request: request)
            }
            router.on("media/:id/thumbnail", method: method) { request, ctx -> Response in
                let recording = try await recording(try ctx.parameters.require("id"))
                guard let thumbnail = recording.thumbnail else {
                    throw WebError(.notFound, "recording \(recording.id) has no thumbnail")
                }
                return try MediaResponder.respond(to: request, path: thumbnail, contentType: "image/jpeg")
            }
            router.on("media/snapshots/:id", method: method) { request, ctx -> Response in
                guard let path = self.context.media.snapshotPath(id: try ctx.parameters.require("id")) else {
                    throw WebError(.notFound, "no snapshot with that id")
                }
                return try MediaResponder.respond(to: request, path: path, contentType: "image/jpeg")
            }
        }
    }

    /// The recording with exactly this id, or 404.
    func recording(_ id: String) async throws -> Recording {
        guard let recording = try await context.media.recording(id: id) else {
            throw WebError(.notFound, "no recording with id \(id)")
        }
        return recording
    }

    func video(_ recording: Recording, request: Request) throws -> Response {
        guard recording.state != .failed else {
            throw WebError(.notFound, "recording \(recording.id) has no file (\(recording.failureReason ?? "failed"))")
        }
        let download = try Self.flag("download", in: request.uri.queryParameters) ?? false
        return try MediaResponder.respond(
            to: request, path: recording.path, contentType: "video/mp4",
            downloadName: download ? Self.fileName(recording) : nil)
    }

    /// A download's file name: the title's safe characters, then the id's first 8.
    static func fileName(_ recording: Recording) -> String {
        let safe = recording.title.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" ? $0 : "_" }
        return String(String(safe).prefix(60)) + "-" + recording.id.prefix(8) + ".mp4"
    }
}
