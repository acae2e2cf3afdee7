import Foundation
import NIOHTTP1
import SigV4

/// Whole objects: put (from disk or memory), head, delete, and the bucket itself.
extension S3Client {
    /// PUTs `length` bytes of `file` from `start` as `key`; the ETag the server answers.
    func putObject(
        _ key: String, file: String, length: Int64, sha256: String, rateKbps: Int,
        progress: @escaping @Sendable (Int64) -> Void
    ) async throws -> String? {
        let answer = try await send(
            .PUT, key: key, headers: objectHeaders,
            body: .file(file, start: 0, length: length, rateKbps: rateKbps, progress: progress),
            sha256: sha256, timeout: .hours(24))
        return S3XML.etag(answer.headers.first(name: "ETag"))
    }

    /// PUTs small data as `key`; the ETag the server answers.
    func putObject(_ key: String, data: Data) async throws -> String? {
        let answer = try await send(
            .PUT, key: key, headers: objectHeaders, body: .data(data), sha256: FileDigest.of(data).sha256)
        return S3XML.etag(answer.headers.first(name: "ETag"))
    }

    /// The object's size and ETag; nil when there is none.
    func headObject(_ key: String) async throws -> (size: Int64, etag: String?)? {
        let answer = try await send(.HEAD, key: key, accept: [200, 404])
        guard answer.status == 200 else { return nil }
        return (
            Int64(answer.headers.first(name: "Content-Length") ?? "") ?? -1,
            S3XML.etag(answer.headers.first(name: "ETag"))
        )
    }

    /// Deletes `key`; S3 answers 204 whether it was there or not.
    func deleteObject(_ key: String) async throws {
        _ = try await send(.DELETE, key: key, accept: [200, 204, 404])
    }

    /// HEAD on the bucket: 200 when it exists and the credentials may use it (403: they may not, 404: no bucket).
    func headBucket() async throws -> Int {
        try await send(.HEAD, key: "", accept: [200, 301, 400, 403, 404]).status
    }
}
