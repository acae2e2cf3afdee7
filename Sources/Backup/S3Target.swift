import Foundation

/// Backup to an S3 bucket. A clip up to `partSize` is one PUT; a larger one a multipart upload (`S3MultipartUpload`)
/// that a restart takes up where it stopped. Every body is signed with its SHA-256, which S3 checks; the ETag the
/// server answers is checked against the MD5 of what was sent (not under SSE-KMS, whose ETags are not MD5s), and the
/// object's size with HEAD before the clip counts as backed up.
struct S3Target: BackupTarget {
    let client: S3Client
    let partSize: Int64
    let checksETags: Bool

    func store(
        file: String, size: Int64, at path: String, resume: UploadResume, rateKbps: Int,
        progress: @escaping @Sendable (Int64) -> Void
    ) async throws {
        let key = client.location.key(path)
        if size > partSize {
            let upload = S3MultipartUpload(
                client: client, key: key, file: file, size: size, partSize: partSize,
                checksETags: checksETags, rateKbps: rateKbps, resume: resume, progress: progress)
            try await upload.run()
        } else {
            let digest = try await FileDigest.of(file, length: size)
            let etag = try await client.putObject(
                key, file: file, length: size, sha256: digest.sha256, rateKbps: rateKbps, progress: progress)
            try check(etag, expected: digest.md5, of: key)
        }
        let head = try await client.headObject(key)
        guard head?.size == size else {
            throw RemoteError.verification(
                "\(key) is \(head.map { String($0.size) } ?? "missing") bytes on the server, \(size) here")
        }
    }

    func store(data: Data, at path: String) async throws {
        let key = client.location.key(path)
        try check(try await client.putObject(key, data: data), expected: FileDigest.of(data).md5, of: key)
    }

    /// The objects, and any multipart upload of the media still open (a clip deleted while it went up).
    func remove(_ layout: RemoteLayout) async throws {
        let media = client.location.key(layout.media)
        for (key, id) in try await client.openUploads(of: media) {
            try await client.abortMultipartUpload(key, uploadId: id)
        }
        for path in [layout.media, layout.thumbnail, layout.sidecar] {
            try await client.deleteObject(client.location.key(path))
        }
    }

    func exists() async -> Bool { (try? await client.headBucket()) == 200 }

    func check(_ etag: String?, expected: String, of key: String) throws {
        guard checksETags, let etag else { return }
        guard etag == expected else {
            throw RemoteError.verification(
                "\(key): the server's ETag \(etag) is not the MD5 of what was sent (\(expected))")
        }
    }
}
