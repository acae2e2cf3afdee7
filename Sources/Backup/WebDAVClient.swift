import ApplianceBase
import AsyncHTTPClient
import Foundation
import Mp4
import NIOCore
import NIOHTTP1
import SystemCalls
import _NIOFileSystem

/// A small WebDAV client: the five methods a backup needs. Uploads stream from disk, so memory does not grow
/// with the file; an optional rate cap paces the stream.
public struct WebDAVClient: Sendable {
    package let http: HTTPClient
    /// Base URL without a trailing slash, e.g. https://cloud.example/remote.php/dav/files/me/appliance
    package let base: String
    package let authorization: String?

    public init(http: HTTPClient, base: String, username: String, password: String?) {
        self.http = http
        self.base = base.hasSuffix("/") ? String(base.dropLast()) : base
        if !username.isEmpty || password != nil {
            authorization = "Basic " + Data("\(username):\(password ?? "")".utf8).base64EncodedString()
        } else {
            authorization = nil
        }
    }

    /// `path` is relative to the base ("2026/11/21/clip.mp4"); every segment is percent-encoded.
    package func url(_ path: String) -> String {
        base + "/"
            + path.split(separator: "/").map {
                $0.addingPercentEncoding(
                    withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/?#[]@!$&'()*+,;=")))
                    ?? String($0)
            }.joined(separator: "/")
    }

    private func request(_ method: HTTPMethod, _ path: String, collection: Bool = false) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url(path) + (collection ? "/" : ""))
        request.method = method
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        return request
    }

    /// Sends a request; a transport or TLS failure becomes `RemoteError.transport` with a one-line reason.
    package func execute(_ request: HTTPClientRequest, timeout: TimeAmount) async throws -> HTTPClientResponse {
        do {
            return try await http.execute(request, timeout: timeout)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw RemoteError.transport(BackupTrust.explain(error) ?? "\(error)")
        }
    }

    private func send(
        _ request: HTTPClientRequest, _ method: String, _ path: String, accept: Set<Int>,
        timeout: TimeAmount = .seconds(60)
    ) async throws -> HTTPClientResponse {
        let response = try await execute(request, timeout: timeout)
        guard accept.contains(Int(response.status.code)) else {
            _ = try? await response.body.collect(upTo: 64 * 1024)
            throw RemoteError.status(
                Int(response.status.code), method: method, path: path,
                retryAfter: response.headers.first(name: "Retry-After").flatMap(Self.retryAfter))
        }
        return response
    }

    /// Creates each missing folder of `path` (relative to the base) from the top. Servers answer an existing folder
    /// with 405 (Apache, wsgidav), 301 or 200: all mean it is there. 409 means a parent is missing — also the base
    /// folder itself — so the parents are created first, walking up as far as needed.
    public func makeCollections(_ path: String) async throws {
        var current = ""
        for segment in path.split(separator: "/") {
            current += (current.isEmpty ? "" : "/") + segment
            try await makeCollection(url(current) + "/", depth: 0)
        }
    }

    private func makeCollection(_ absolute: String, depth: Int) async throws {
        var request = HTTPClientRequest(url: absolute)
        request.method = .init(rawValue: "MKCOL")
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        let label = URL(string: absolute)?.path ?? absolute
        do {
            let response = try await send(request, "MKCOL", label, accept: [200, 201, 204, 301, 405])
            _ = try? await response.body.collect(upTo: 64 * 1024)
        } catch RemoteError.status(409, _, _, _) where depth < 8 {
            guard let url = URL(string: absolute), url.path.count > 1 else {
                throw RemoteError.status(409, method: "MKCOL", path: label, retryAfter: nil)
            }
            let parent = url.deletingLastPathComponent().absoluteString
            try await makeCollection(parent.hasSuffix("/") ? parent : parent + "/", depth: depth + 1)
            let response = try await send(request, "MKCOL", label, accept: [200, 201, 204, 301, 405])
            _ = try? await response.body.collect(upTo: 64 * 1024)
        }
    }

    /// PUTs a file from disk, streamed in 256 KiB chunks through a ring of reused buffers; `progress` gets the
    /// bytes sent so far.
    public func put(file: String, to path: String, rateKbps: Int, progress: @escaping @Sendable (Int64) -> Void)
        async throws
    {
        guard let size = try await FileSystem.shared.info(forFileAt: FilePath(file))?.size else {
            throw SystemCallError("open \(file)", code: ENOENT)
        }
        var request = request(.PUT, path)
        request.body = FileBody.stream(file, length: size, rateKbps: rateKbps, http: http, progress: progress)
        let response = try await send(request, "PUT", path, accept: [200, 201, 204], timeout: .hours(24))
        _ = try? await response.body.collect(upTo: 64 * 1024)
    }

    /// PUTs small data (thumbnail, sidecar).
    public func put(data: Data, to path: String) async throws {
        var request = request(.PUT, path)
        request.body = .bytes(ByteBuffer(bytes: data))
        let response = try await send(request, "PUT", path, accept: [200, 201, 204])
        _ = try? await response.body.collect(upTo: 64 * 1024)
    }

    /// Renames on the server, replacing the destination.
    public func move(_ from: String, to destination: String) async throws {
        var request = request(.init(rawValue: "MOVE"), from)
        request.headers.add(name: "Destination", value: url(destination))
        request.headers.add(name: "Overwrite", value: "T")
        let response = try await send(request, "MOVE", from, accept: [200, 201, 204])
        _ = try? await response.body.collect(upTo: 64 * 1024)
    }

    /// The size the server reports for `path` (PROPFIND, Depth 0); nil when it does not exist.
    public func size(of path: String) async throws -> Int64? {
        var request = request(.init(rawValue: "PROPFIND"), path)
        request.headers.add(name: "Depth", value: "0")
        request.headers.add(name: "Content-Type", value: "application/xml")
        request.body = .bytes(
            ByteBuffer(
                string: #"<?xml version="1.0"?><propfind xmlns="DAV:"><prop><getcontentlength/></prop></propfind>"#))
        let response: HTTPClientResponse
        do {
            response = try await send(request, "PROPFIND", path, accept: [207])
        } catch RemoteError.status(404, _, _, _) {
            return nil
        }
        let body = try await response.body.collect(upTo: 1024 * 1024)
        let text = String(buffer: body)
        guard let range = text.range(of: #"getcontentlength[^>]*>\s*(\d+)\s*<"#, options: .regularExpression) else {
            return nil
        }
        return Int64(text[range].filter(\.isNumber))
    }

    /// Deletes `path`; a missing file counts as deleted.
    public func delete(_ path: String) async throws {
        let response = try await send(request(.DELETE, path), "DELETE", path, accept: [200, 202, 204, 404])
        _ = try? await response.body.collect(upTo: 64 * 1024)
    }

    /// Retry-After as seconds or an HTTP date.
    static func retryAfter(_ value: String) -> Double? {
        if let seconds = Double(value.trimmingCharacters(in: .whitespaces)) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSinceNow) }
    }
}

/// File chunks paced to a byte rate, reporting progress as they go.
struct PacedChunks<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == ByteBuffer {
    package typealias Element = ByteBuffer
    package let base: Base
    package let bytesPerSecond: Double?
    package let progress: @Sendable (Int64) -> Void
    /// Awaited before every chunk but the first (lets the consumer catch up).
    package var settle: @Sendable () async -> Void = {}

    package struct AsyncIterator: AsyncIteratorProtocol {
        package var base: Base.AsyncIterator
        package let bytesPerSecond: Double?
        package let progress: @Sendable (Int64) -> Void
        package let settle: @Sendable () async -> Void
        package var sent: Int64 = 0
        package let started = ContinuousClock.now

        package mutating func next() async throws -> ByteBuffer? {
            if sent > 0 { await settle() }
            guard let chunk = try await base.next() else { return nil }
            sent += Int64(chunk.readableBytes)
            if let bytesPerSecond {
                let due = Duration.seconds(Double(sent) / bytesPerSecond)
                let elapsed = ContinuousClock.now - started
                if due > elapsed { try await Task.sleep(for: due - elapsed) }
            }
            progress(sent)
            return chunk
        }
    }

    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            base: base.makeAsyncIterator(), bytesPerSecond: bytesPerSecond, progress: progress, settle: settle)
    }
}
