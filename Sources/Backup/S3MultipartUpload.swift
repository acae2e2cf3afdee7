import Foundation

/// One clip going up in parts: `part_size_mb` slices of the file, each streamed from disk with its SHA-256 and its
/// ETag checked against its MD5, the upload's id and finished parts saved in the queue's row after every part. A
/// restart asks the server which parts it has (ListParts) and sends only the rest; an upload the server no longer
/// knows starts again, and the clip's other open uploads (left by a crash before the id was saved) are aborted
/// first. The joined object's ETag is checked against the MD5 of the parts' MD5s.
struct S3MultipartUpload: Sendable {
    let client: S3Client
    let key: String
    let file: String
    let size: Int64
    let partSize: Int64
    let checksETags: Bool
    let rateKbps: Int
    let resume: UploadResume
    let progress: @Sendable (Int64) -> Void

    /// What the queue's row keeps (JSON).
    struct State: Codable, Equatable {
        var key: String
        var uploadId: String
        var size: Int64
        var partSize: Int64
        /// Part number → its MD5 (hex), for the parts the server confirmed.
        var parts: [Int: String]
    }

    var partCount: Int { Int((size + partSize - 1) / partSize) }

    func run() async throws {
        var state: State
        if let resumed = try await resumed() { state = resumed } else { state = try await fresh() }
        var done = state.parts.keys.reduce(Int64(0)) { $0 + length(of: $1) }
        progress(done)
        for number in 1...partCount where state.parts[number] == nil {
            let start = Int64(number - 1) * partSize
            let length = length(of: number)
            let digest = try await FileDigest.of(file, start: start, length: length)
            let sentBefore = done
            let etag: String?
            do {
                etag = try await client.uploadPart(
                    key, uploadId: state.uploadId, number: number, file: file, start: start, length: length,
                    sha256: digest.sha256, rateKbps: rateKbps
                ) { progress(sentBefore + $0) }
            } catch RemoteError.service(let status, let code, _, _, _, _) where status == 501 || code == "NoSuchUpload"
            {
                try await abandon(state, because: "HTTP \(status) \(code) for part \(number)")
            }
            if checksETags, let etag, etag != digest.md5 {
                throw RemoteError.verification(
                    "\(key) part \(number): the server's ETag \(etag) is not the MD5 of what was sent")
            }
            state.parts[number] = digest.md5
            done += length
            try await resume.save(try encode(state))
        }
        let parts = (1...partCount).map { (number: $0, etag: state.parts[$0]!) }
        let etag = try await client.completeMultipartUpload(key, uploadId: state.uploadId, parts: parts)
        try await resume.save(nil)
        let expected = FileDigest.multipartETag(partMD5s: parts.map(\.etag))
        if checksETags, let etag, etag != expected {
            throw RemoteError.verification("\(key): the joined object's ETag \(etag) is not \(expected)")
        }
    }

    /// The server cannot take the upload further (it lost it, or — rclone's serve s3 — it will not take again a
    /// part a dead client left half-sent): drop it, so that the queue's next try starts over.
    private func abandon(_ state: State, because reason: String) async throws -> Never {
        try? await client.abortMultipartUpload(key, uploadId: state.uploadId)
        try await resume.save(nil)
        resume.note("the server cannot go on with the upload of \(key) (\(reason)); it starts again at the next try")
        throw RemoteError.verification("the server cannot go on with the upload of \(key) (\(reason))")
    }

    private func length(of number: Int) -> Int64 { min(partSize, size - Int64(number - 1) * partSize) }

    /// The saved upload, with only the parts the server still has (as sent); nil when there is none to go on with.
    private func resumed() async throws -> State? {
        guard let saved = resume.saved, var state = try? JSONDecoder().decode(State.self, from: Data(saved.utf8)),
            state.key == key, state.size == size, state.partSize == partSize
        else { return nil }
        let listed: [S3Client.ListedPart]
        do {
            listed = try await client.listParts(key, uploadId: state.uploadId)
        } catch RemoteError.service(404, _, _, _, _, _) {
            resume.note("the server no longer has the upload of \(key) (NoSuchUpload); starting it again")
            return nil  // aborted or expired on the server, or a server that lost it
        }
        let confirmed = Dictionary(listed.map { ($0.number, $0) }, uniquingKeysWith: { $1 })
        state.parts = state.parts.filter { number, md5 in
            guard let part = confirmed[number] else { return false }
            return part.size == length(of: number) && (!checksETags || part.etag == md5)
        }
        resume.note("resuming the upload of \(key): \(state.parts.count) of \(partCount) parts already on the server")
        return state
    }

    /// A new upload, after aborting any the clip left open.
    private func fresh() async throws -> State {
        for (open, id) in try await client.openUploads(of: key) {
            try await client.abortMultipartUpload(open, uploadId: id)
        }
        let state = State(
            key: key, uploadId: try await client.createMultipartUpload(key), size: size, partSize: partSize, parts: [:])
        try await resume.save(try encode(state))
        return state
    }

    private func encode(_ state: State) throws -> String {
        String(decoding: try JSONEncoder().encode(state), as: UTF8.self)
    }
}
