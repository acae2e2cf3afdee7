import ApplianceProtocol
import Foundation
import FrontEndInterface
import HTTPTypes
import Hummingbird
import Mp4

/// `/api/timeline/video.mp4?start=…&end=…` (ISO 8601): one MP4 of what was recorded between two moments, built from
/// the recordings' own samples (`RangeVideo`) and served with the same exact Range, validator and HEAD handling as a
/// clip. `X-Video-Start` says when its first frame was (the keyframe at or before `start`), `X-Video-Pieces` where
/// each recording begins in it (`offset@ISO` list), so a page maps the player's clock to the wall clock across
/// gaps. `?download=1` makes it an attachment; `?channel=NAME` names the channel whose picture it is (the first
/// by default).
extension Routes {
    func addRangeVideo(to router: GuardedRouter) {
        for method in [HTTPRequest.Method.get, .head] {
            router.on("api/timeline/video.mp4", method: method) { request, _ -> Response in
                let video = try await rangeVideo(request)
                let download = try Self.flag("download", in: request.uri.queryParameters) ?? false
                var response = MediaResponder.respond(
                    to: request, parts: video.parts,
                    validators: FileValidators(size: video.size, modified: video.end, etag: video.etag),
                    contentType: "video/mp4", downloadName: download ? Self.rangeFileName(video) : nil)
                response.headers[Self.videoStartHeader] = Timestamps.iso(video.start)
                response.headers[Self.videoPiecesHeader] = video.pieces.map {
                    String(format: "%.3f", $0.offset) + "@" + Timestamps.iso($0.start)
                }
                .joined(separator: ",")
                return response
            }
        }
    }

    /// The range video a request's `start` and `end` name, built or from the cache; 400 or 404 with the reason.
    func rangeVideo(_ request: Request) async throws -> RangeVideo {
        let (from, to) = try Self.videoRange(request)
        let channel = try Self.channel(request, among: context.media.channels)
        return try await rangeVideos.video(from: from, to: to, channel: channel) {
            do {
                return try await self.context.media.rangeVideo(from: from, to: to, channel: channel)
            } catch let failure as RangeVideo.Failure {
                throw WebError(.notFound, failure.description)
            }
        }
    }

    static let videoStartHeader = HTTPField.Name("X-Video-Start")!
    static let videoPiecesHeader = HTTPField.Name("X-Video-Pieces")!

    /// `start` and `end`, ISO 8601, `start` before `end`, at most `RangeVideo.longest` apart; 400 otherwise.
    static func videoRange(_ request: Request) throws -> (Date, Date) {
        let query = request.uri.queryParameters
        func moment(_ key: String) throws -> Date {
            let text = query.get(key) ?? ""
            guard let date = Timestamps.date(iso: text) else {
                throw WebError(
                    .badRequest, "\(key) must be a moment such as 2026-11-26T14:03:00Z, found \"\(text.prefix(40))\"")
            }
            return date
        }
        let (from, to) = (try moment("start"), try moment("end"))
        guard from < to else { throw WebError(.badRequest, "start must be before end") }
        guard to.timeIntervalSince(from) <= RangeVideo.longest else {
            throw WebError(
                .badRequest,
                "a video covers at most \(Int(RangeVideo.longest / 3600)) hours; export longer ranges in parts")
        }
        return (from, to)
    }

    /// The `channel` a request names, one of `channels`; nil when it names none (the first); 400 otherwise.
    static func channel(_ request: Request, among channels: [String]) throws -> String? {
        guard let name = request.uri.queryParameters.get("channel") else { return nil }
        guard channels.contains(name) else {
            throw WebError(
                .badRequest,
                "no channel \"\(name.prefix(40))\": the channels are \(channels.joined(separator: ", "))")
        }
        return name
    }

    /// `appliance-20261126-140300-140800.mp4`, in local time.
    static func rangeFileName(_ video: RangeVideo) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let end = DateFormatter()
        end.locale = formatter.locale
        end.dateFormat = "HHmmss"
        return "appliance-\(formatter.string(from: video.start))-\(end.string(from: video.end)).mp4"
    }
}

/// The last few range videos built, for a short while: a player asks for one video in many Range requests, and
/// building its index reads every file's index. Ranges that reach the present are not kept (the file being
/// written will join them).
actor RangeVideoCache {
    private var entries: [(key: String, built: Date, video: RangeVideo)] = []
    static let capacity = 4
    static let lifetime: TimeInterval = 30

    func video(from: Date, to: Date, channel: String?, build: @Sendable () async throws -> RangeVideo) async throws
        -> RangeVideo
    {
        let key = "\(from.timeIntervalSince1970)|\(to.timeIntervalSince1970)|\(channel ?? "")"
        let now = Date()
        entries.removeAll { now.timeIntervalSince($0.built) > Self.lifetime }
        if let hit = entries.first(where: { $0.key == key }) { return hit.video }
        let video = try await build()
        if to < now {
            entries.removeAll { $0.key == key }
            entries.append((key, now, video))
            if entries.count > Self.capacity { entries.removeFirst() }
        }
        return video
    }
}
