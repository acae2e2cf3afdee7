import ApplianceProtocol
import Foundation
import FrontEndInterface
import Hummingbird
import NIOCore

/// Every route of the dashboard, grouped by what it serves. Each handler turns HTTP into a `Command` for the one
/// entry point (or a media lookup), and the typed result back into JSON or HTML.
struct Routes: Sendable {
    let context: FrontEndContext
    let streams: StreamRegistry
    let access: AccessMiddleware
    /// Every route with its requirement, as added (served at `/api/routes`).
    let table: RouteTable
    /// Range videos just built, shared by the video and its previews track.
    let rangeVideos = RangeVideoCache()

    func add(to router: GuardedRouter) {
        addAPI(to: router)
        addMedia(to: router)
        addActivity(to: router)
        addTimeline(to: router)
        addRangeVideo(to: router)
        addScrub(to: router)
        addLive(to: router)
        addWHEP(to: router)
        addONVIF(to: router)
        addPages(to: router)
        addLogin(to: router)
        addShares(to: router)
    }

    /// Sends a command; an `ApplianceError` becomes the HTTP error its code maps to.
    func perform(_ command: Command) async throws -> CommandResult {
        do {
            return try await context.perform(command)
        } catch {
            throw WebError(error)
        }
    }
}

/// JSON bodies, encoded as `ctl --json` prints them (snake_case keys, ISO 8601 times).
enum JSONBody {
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let data = try WireFormat.encoder.encode(value)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data + [0x0A])))
    }

    /// A command result's payload.
    static func response(_ result: CommandResult) throws -> Response { try response(AnyPayload(result.payload)) }

    /// The request body as command arguments (at most 64 KiB; 413 past that). A body must say it is JSON
    /// (`Content-Type: application/json`): what an HTML form or a "simple" cross-site fetch can send (text/plain,
    /// form encodings) is refused with 415 before it is read as a command.
    static func arguments(_ request: Request, context: WebContext) async throws -> [String: JSONValue] {
        var request = request
        let buffer = try await collect(&request, upTo: context.maxUploadSize)
        if buffer.readableBytes > 0, !isJSON(request.headers[.contentType]) {
            throw WebError(
                .unsupportedMediaType,
                """
                send the body as Content-Type: application/json (found \
                \(request.headers[.contentType]?.prefix(60) ?? "none"))
                """
            )
        }
        do {
            return try RequestLine.parseArguments(Data(buffer.readableBytesView))
        } catch {
            throw WebError(error)
        }
    }
}

extension JSONBody {
    /// `application/json`, or a `+json` type, with or without parameters (`; charset=utf-8`).
    static func isJSON(_ contentType: String?) -> Bool {
        guard let type = contentType?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        else { return false }
        return type == "application/json" || type.hasPrefix("application/") && type.hasSuffix("+json")
    }

    /// The whole body, at most `limit` bytes, within `ConnectionLimits.bodyTimeout`: 413 past the size, 408 (and the
    /// connection closed) past the time, 400 for a body that is not valid HTTP.
    static func collect(_ request: inout Request, upTo limit: Int) async throws -> ByteBuffer {
        let whole = request
        do {
            return try await withThrowingTaskGroup(of: ByteBuffer?.self) { group in
                group.addTask {
                    var request = whole
                    return try await request.collectBody(upTo: limit)
                }
                group.addTask {
                    try await Task.sleep(for: ConnectionLimits.standard.bodyTimeout)
                    return nil
                }
                defer { group.cancelAll() }
                guard let body = try await group.next() ?? nil else {
                    var error = WebError(
                        .requestTimeout,
                        """
                        the request body did not arrive within \
                        \(ConnectionLimits.standard.bodyTimeout.components.seconds) s
                        """
                    )
                    error.extraHeaders[.connection] = "close"
                    throw error
                }
                return body
            }
        } catch let error as WebError {
            throw error
        } catch is NIOTooManyBytesError {
            throw WebError(.contentTooLarge, "request body larger than \(limit) bytes")
        } catch {
            throw WebError(.badRequest, "unreadable request body: \(error)")
        }
    }
}

struct AnyPayload: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: Encoder) throws { try value.encode(to: encoder) }
}

/// A recording as the API gives it: the `ctl --json` object plus `video_url` and `thumbnail_url`.
struct WebRecording: Encodable {
    let recording: Recording
    var measured: RecordingInfo.Measured?

    enum Keys: String, CodingKey { case videoUrl, thumbnailUrl, measured }

    func encode(to encoder: Encoder) throws {
        try recording.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        if recording.state != .failed { try container.encode(MediaPaths.video(recording.id), forKey: .videoUrl) }
        if recording.thumbnail != nil {
            try container.encode(MediaPaths.thumbnail(recording.id), forKey: .thumbnailUrl)
        }
        try container.encodeIfPresent(measured, forKey: .measured)
    }
}

/// Where the dashboard serves each kind of media, by id.
enum MediaPaths {
    static func video(_ id: String) -> String { "/media/\(id)/video" }
    static func thumbnail(_ id: String) -> String { "/media/\(id)/thumbnail" }
    static func snapshot(_ id: String) -> String { "/media/snapshots/\(id)" }
    static func activityPicture(_ id: Int64) -> String { "/media/activity/\(id)/picture" }
    static func activityPlay(_ id: Int64) -> String { "/activity/\(id)/play" }
}
