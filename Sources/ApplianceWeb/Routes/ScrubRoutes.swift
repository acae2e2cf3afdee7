import ApplianceBase
import ApplianceProtocol
import Foundation
import FrontEndInterface
import HTTPTypes
import Hummingbird

/// Scrubbing previews: a clip's as a WebVTT thumbnails track (`/media/ID/scrub.vtt`, each cue naming its JPEG,
/// `/media/ID/scrub/N.jpg`), the form players' seek bars read, and the same for a range video
/// (`/api/timeline/scrub.vtt?start=&end=`, in the video's clock); and the one shown for a moment of the timeline
/// (`/api/timeline/scrub.jpg?at=ISO`), with `X-Scrub-At` saying when it was taken. Previews never change once
/// written, so they may be cached.
extension Routes {
    func addScrub(to router: GuardedRouter) {
        router.get("media/:id/scrub.vtt") { _, ctx -> Response in
            let recording = try await recording(try ctx.parameters.require("id"))
            let previews = try await context.media.scrubPreviews(id: recording.id)
            guard !previews.isEmpty else {
                throw WebError(.notFound, "recording \(recording.id) has no scrubbing previews")
            }
            let length = recording.durationMs.map { Double($0) / 1000 } ?? (previews.last?.offsetS ?? 0) + 2
            let text = Self.webVTT(
                previews.map { ($0.offsetS, "/media/\(recording.id)/scrub/\($0.index).jpg") }, length: length)
            return Response(
                status: .ok, headers: [.contentType: "text/vtt; charset=utf-8", .cacheControl: "private, no-cache"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        router.get("media/:id/scrub/:file") { _, ctx -> Response in
            let id = try ctx.parameters.require("id")
            let file = try ctx.parameters.require("file")
            guard file.hasSuffix(".jpg"), let index = Int(file.dropLast(4)), index >= 0,
                let jpeg = context.media.scrubJPEG(id: id, index: index)
            else { throw WebError(.notFound, "no such preview") }
            return Self.jpeg(jpeg, cache: "private, max-age=86400")
        }
        router.get("api/timeline/scrub.vtt") { request, _ -> Response in
            let video = try await rangeVideo(request)
            var cues: [(ScrubPreview, String, Double)] = []  // preview, its recording, its time in the video
            for piece in video.pieces {
                let previews = try await context.media.scrubPreviews(id: piece.recordingId)
                let lead = piece.start.timeIntervalSince(piece.recordingStart)
                // The preview shown when the piece begins (the last at or before it), then those inside it.
                let first = previews.last { $0.offsetS <= lead + 0.001 }
                for preview in previews
                where preview == first || (preview.offsetS > lead + 0.001 && preview.offsetS - lead < piece.duration) {
                    cues.append((preview, piece.recordingId, piece.offset + max(0, preview.offsetS - lead)))
                }
            }
            guard !cues.isEmpty else { throw WebError(.notFound, "no scrubbing previews in that range") }
            let text = Self.webVTT(
                cues.map { ($0.2, "/media/\($0.1)/scrub/\($0.0.index).jpg") }, length: video.duration)
            return Response(
                status: .ok, headers: [.contentType: "text/vtt; charset=utf-8", .cacheControl: "private, no-cache"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        router.get("api/timeline/scrub.jpg") { request, _ -> Response in
            let text = request.uri.queryParameters.get("at") ?? ""
            guard let at = Timestamps.date(iso: text) else {
                throw WebError(
                    .badRequest, "at must be a moment such as 2026-11-26T14:03:00Z, found \"\(text.prefix(40))\"")
            }
            let channel = try Self.channel(request, among: context.media.channels)
            guard let found = try await context.media.scrubJPEG(at: at, channel: channel) else {
                throw WebError(.notFound, "no preview of that moment")
            }
            var response = Self.jpeg(found.jpeg, cache: "private, max-age=60")
            response.headers[Self.scrubAtHeader] = Timestamps.iso(found.takenAt)
            response.headers[Self.recordingIdHeader] = found.recordingId
            return response
        }
    }

    static let scrubAtHeader = HTTPField.Name("X-Scrub-At")!
    static let recordingIdHeader = HTTPField.Name("X-Recording-Id")!

    static func jpeg(_ data: Data, cache: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "image/jpeg", .cacheControl: cache],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// A WebVTT track whose cues run from one preview (its time, its image's URL) to the next, the last to `length`.
    static func webVTT(_ previews: [(time: Double, url: String)], length: Double) -> String {
        var lines = ["WEBVTT", ""]
        for (i, preview) in previews.enumerated() {
            let end = i + 1 < previews.count ? previews[i + 1].time : max(length, preview.time + 0.001)
            guard end > preview.time else { continue }
            lines += ["\(vttTime(preview.time)) --> \(vttTime(end))", preview.url, ""]
        }
        return lines.joined(separator: "\n")
    }

    /// `01:02:03.456`.
    static func vttTime(_ seconds: Double) -> String {
        let ms = Int((seconds * 1000).rounded())
        return String(format: "%02d:%02d:%02d.%03d", ms / 3_600_000, ms / 60_000 % 60, ms / 1000 % 60, ms % 1000)
    }
}
