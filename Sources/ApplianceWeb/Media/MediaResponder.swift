import Foundation
import FrontEndInterface
import Hummingbird
import Mp4
import NIOCore
import _NIOFileSystem

/// Serves one media file (a clip, a thumbnail, a snapshot) with exact HTTP semantics, streamed from disk in
/// 256 KiB chunks, never read whole:
/// - `Range`: single ranges, `bytes=N-`, `bytes=-N` (the whole file when N exceeds it), Safari's `bytes=0-1`
///   probe; an unsatisfiable range is 416 with `Content-Range: bytes */LEN`;
/// - `If-Range`, `If-None-Match` / `If-Modified-Since` (304), HEAD, `ETag`, `Last-Modified`, `Accept-Ranges`.
/// Hummingbird's FileMiddleware got `bytes=-10` and out-of-range requests wrong (measured): it is not used here.
enum MediaResponder {
    /// Bytes read from disk per write. 256 KiB measured fastest for a 1 GiB download here (docs/BENCHMARKS.md):
    /// 1.02–1.18 × nginx against 0.81–0.90 × with 1 MiB chunks, and less memory; a chunk that fits the core's L2
    /// cache between the read and the socket write is the likely reason.
    static let chunkBytes = 1 << 18

    /// `downloadName`: when set, `Content-Disposition: attachment` with that file name.
    static func respond(to request: Request, path: String, contentType: String, downloadName: String? = nil) throws
        -> Response
    {
        guard let validators = fileValidators(path) else { throw WebError(.notFound, "the file is gone") }
        return respond(
            to: request, parts: [.file(path: path, offset: 0, length: validators.size)], validators: validators,
            contentType: contentType, downloadName: downloadName)
    }

    /// The same for bytes that are a sequence of parts (in memory, or stretches of files): the range video.
    static func respond(
        to request: Request, parts: [RangeVideo.Part], validators: FileValidators, contentType: String,
        downloadName: String? = nil
    ) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.acceptRanges] = "bytes"
        headers[.eTag] = validators.etag
        headers[.lastModified] = validators.lastModified
        headers[.cacheControl] = "private, no-cache"  // revalidate: clips are renamed and deleted
        if let downloadName {
            headers[.contentDisposition] =
                "attachment; filename=\"\(downloadName.filter { $0.isASCII && $0 != "\"" && $0 != "\\" })\""
        }
        if validators.notModified(
            ifNoneMatch: request.headers[.ifNoneMatch], ifModifiedSince: request.headers[.ifModifiedSince])
        {
            return Response(status: .notModified, headers: headers)
        }
        let size = validators.size
        var range = ByteRange(header: request.headers[.range], size: size)
        if range != .whole, !validators.rangeStillValid(ifRange: request.headers[.ifRange]) { range = .whole }
        let status: HTTPResponse.Status
        let first: Int64
        let last: Int64
        switch range {
        case .whole:
            (status, first, last) = (.ok, 0, size - 1)
        case .part(let from, let to):
            (status, first, last) = (.partialContent, from, to)
            headers[.contentRange] = "bytes \(from)-\(to)/\(size)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(size)"
            headers[.contentLength] = "0"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        let length = last - first + 1
        headers[.contentLength] = String(length)
        if request.method == .head || length == 0 { return Response(status: status, headers: headers) }
        let body = ResponseBody(contentLength: Int(length)) { writer in
            var position: Int64 = 0
            for part in parts {
                defer { position += part.length }
                // The part's bytes that fall in first...last, in the part's own offsets.
                let low = max(first, position) - position
                let high = min(last, position + part.length - 1) - position
                guard low <= high else { continue }
                switch part {
                case .bytes(let data):
                    try await writer.write(
                        ByteBuffer(bytes: data[(data.startIndex + Int(low))...(data.startIndex + Int(high))]))
                case .file(let path, let offset, _):
                    try await FileSystem.shared.withFileHandle(forReadingAt: FilePath(path)) { handle in
                        for try await chunk in handle.readChunks(
                            in: (offset + low)...(offset + high), chunkLength: .bytes(Int64(chunkBytes)))
                        {
                            try await writer.write(chunk)
                        }
                    }
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Size and modification time, or nil when the file is missing or not a regular file.
    static func fileValidators(_ path: String) -> FileValidators? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let nanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
        return FileValidators(size: Int64(info.st_size), modifiedNanoseconds: nanoseconds)
    }
}
