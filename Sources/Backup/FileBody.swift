import AsyncHTTPClient
import NIOCore

/// A file, or a range of it, as a request body streamed from disk: memory does not grow with the file.
enum FileBody {
    /// `length` bytes of `file` from `start`, in 256 KiB chunks through a ring of reused buffers, paced to
    /// `rateKbps` (0: no cap); `progress` gets the bytes sent so far.
    static func stream(
        _ file: String, start: Int64 = 0, length: Int64, rateKbps: Int, http: HTTPClient,
        progress: @escaping @Sendable (Int64) -> Void
    ) -> HTTPClientRequest.Body {
        let chunks = RecycledFileChunks(path: file, chunkLength: 256 * 1024, start: start, length: length)
        // AsyncHTTPClient pulls the next chunk as soon as it has *queued* the last one on the connection's event
        // loop; it only pauses once that loop has run the writes and seen the socket full. A loop that is slow to
        // get the CPU therefore collected up to 160 chunks (+40 MB RSS for a fraction of a second, 1 upload in 10).
        // Waiting for one round trip on that loop before each chunk keeps the chunks in flight to a few (the
        // backup client's group is a single loop, see BackupUploader.init, so `next()` is the connection's loop).
        let loop = http.eventLoopGroup.next()
        let paced = PacedChunks(
            base: chunks, bytesPerSecond: rateKbps > 0 ? Double(rateKbps) * 125 : nil, progress: progress,
            settle: { try? await loop.submit {}.get() })
        return .stream(paced, length: .known(length))
    }
}
