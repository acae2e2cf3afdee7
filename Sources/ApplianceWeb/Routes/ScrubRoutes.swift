import ApplianceCore
import ApplianceProtocol
import Foundation
import HTTPTypes
import Hummingbird

/// Scrubbing previews: a clip's as a WebVTT thumbnails track (`/media/ID/scrub.vtt`, each cue naming its JPEG,
/// `/media/ID/scrub/N.jpg`), the form players' seek bars read; and the one shown for a moment of the timeline
/// (`/api/timeline/scrub.jpg?at=ISO`), with `X-Scrub-At` saying when it was taken. Previews never change once
/// written, so they may be cached.
extension Routes {
    func addScrub(to router: Router<WebContext>) {
        router.get("media/:id/scrub.vtt") { _, ctx -> Response in
            let recording = try await recording(try ctx.parameters.require("id"))
            let previews = try await context.media.scrubPreviews(id: recording.id)
            guard !previews.isEmpty else { throw WebError(.notFound, "recording \(recording.id) has no scrubbing previews") }
            let length = recording.durationMs.map { Double($0) / 1000 } ?? (previews.last?.offsetS ?? 0) + 2
            let text = Self.webVTT(previews, length: length) { "/media/\(recording.id)/scrub/\($0.index).jpg" }
            return Response(status: .ok, headers: [.contentType: "text/vtt; charset=utf-8", .cacheControl: "private, no-cache"],
                            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        router.get("media/:id/scrub/:file") { _, ctx -> Response in
            let id = try ctx.parameters.require("id"), file = try ctx.parameters.require("file")
            guard file.hasSuffix(".jpg"), let index = Int(file.dropLast(4)), index >= 0,
                  let jpeg = context.media.scrubJPEG(id: id, index: index) else { throw WebError(.notFound, "no such preview") }
            return Self.jpeg(jpeg, cache: "private, max-age=86400")
        }
        router.get("api/timeline/scrub.jpg") { request, _ -> Response in
            let text = request.uri.queryParameters.get("at") ?? ""
            guard let at = Timestamps.date(iso: text) else {
                throw WebError(.badRequest, "at must be a moment such as 2026-11-26T14:03:00Z, found \"\(text.prefix(40))\"")
            }
            guard let found = try await context.media.scrubJPEG(at: at) else { throw WebError(.notFound, "no preview of that moment") }
            var response = Self.jpeg(found.jpeg, cache: "private, max-age=60")
            response.headers[Self.scrubAtHeader] = Timestamps.iso(found.takenAt)
            response.headers[Self.recordingIdHeader] = found.recordingId
            return response
        }
    }

    static let scrubAtHeader = HTTPField.Name("X-Scrub-At")!
    static let recordingIdHeader = HTTPField.Name("X-Recording-Id")!

    static func jpeg(_ data: Data, cache: String) -> Response {
        Response(status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: cache], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A WebVTT track whose cues run from one preview to the next (the last to `length`) and name its image.
    static func webVTT(_ previews: [ScrubPreview], length: Double, url: (ScrubPreview) -> String) -> String {
        var lines = ["WEBVTT", ""]
        for (i, preview) in previews.enumerated() {
            let end = i + 1 < previews.count ? previews[i + 1].offsetS : max(length, preview.offsetS + 0.001)
            guard end > preview.offsetS else { continue }
            lines += ["\(vttTime(preview.offsetS)) --> \(vttTime(end))", url(preview), ""]
        }
        return lines.joined(separator: "\n")
    }

    /// `01:02:03.456`.
    static func vttTime(_ seconds: Double) -> String {
        let ms = Int((seconds * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }
}
