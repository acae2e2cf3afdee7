import Foundation
import NIOHTTP1
import SigV4

/// S3's multipart upload: create, send parts, list what the server has, complete, abort, and the uploads still open.
extension S3Client {
    struct ListedPart: Sendable, Equatable {
        var number: Int
        var etag: String
        var size: Int64
    }

    /// Starts a multipart upload of `key`; its upload id.
    func createMultipartUpload(_ key: String) async throws -> String {
        let answer = try await send(.POST, key: key, query: "uploads", headers: objectHeaders)
        guard let id = S3XML.value("UploadId", in: answer.text), !id.isEmpty else {
            throw RemoteError.verification("the server started no upload for \(key) (no UploadId in its answer)")
        }
        return id
    }

    /// Sends part `number` (`length` bytes of `file` from `start`); the part's ETag.
    func uploadPart(
        _ key: String, uploadId: String, number: Int, file: String, start: Int64, length: Int64, sha256: String,
        rateKbps: Int, progress: @escaping @Sendable (Int64) -> Void
    ) async throws -> String? {
        let answer = try await send(
            .PUT, key: key, query: "partNumber=\(number)&uploadId=\(SigV4Encoding.encode(uploadId))",
            body: .file(file, start: start, length: length, rateKbps: rateKbps, progress: progress),
            sha256: sha256, timeout: .hours(1))
        return S3XML.etag(answer.headers.first(name: "ETag"))
    }

    /// The parts the server has for the upload (`RemoteError.service(404, NoSuchUpload…)` when it has no such upload).
    func listParts(_ key: String, uploadId: String) async throws -> [ListedPart] {
        var parts: [ListedPart] = []
        var marker = 0
        while true {
            let query =
                "uploadId=\(SigV4Encoding.encode(uploadId))" + (marker > 0 ? "&part-number-marker=\(marker)" : "")
            let answer = try await send(.GET, key: key, query: query)
            for part in S3XML.elements("Part", in: answer.text) {
                guard let number = S3XML.value("PartNumber", in: part).flatMap(Int.init),
                    let etag = S3XML.etag(S3XML.value("ETag", in: part))
                else { continue }
                parts.append(
                    ListedPart(
                        number: number, etag: etag, size: S3XML.value("Size", in: part).flatMap { Int64($0) } ?? -1))
            }
            guard S3XML.value("IsTruncated", in: answer.text) == "true",
                let next = S3XML.value("NextPartNumberMarker", in: answer.text).flatMap(Int.init), next > marker
            else { return parts }
            marker = next
        }
    }

    /// Joins the parts into the object; the object's ETag. S3 may answer 200 and still fail (an `<Error>` body).
    func completeMultipartUpload(_ key: String, uploadId: String, parts: [(number: Int, etag: String)]) async throws
        -> String?
    {
        let xml =
            "<CompleteMultipartUpload>"
            + parts.map {
                "<Part><PartNumber>\($0.number)</PartNumber><ETag>\"\($0.etag)\"</ETag></Part>"
            }.joined() + "</CompleteMultipartUpload>"
        let data = Data(xml.utf8)
        let answer = try await send(
            .POST, key: key, query: "uploadId=\(SigV4Encoding.encode(uploadId))",
            headers: [("Content-Type", "application/xml")], body: .data(data),
            sha256: FileDigest.of(data).sha256, timeout: .minutes(15))
        if answer.text.contains("<Error>") {
            throw RemoteError.service(
                500, code: S3XML.value("Code", in: answer.text) ?? "InternalError",
                message: S3XML.value("Message", in: answer.text) ?? "", method: "POST", path: key, retryAfter: nil)
        }
        return S3XML.etag(S3XML.value("ETag", in: answer.text))
    }

    /// Drops the upload and the parts the server kept for it.
    func abortMultipartUpload(_ key: String, uploadId: String) async throws {
        _ = try await send(
            .DELETE, key: key, query: "uploadId=\(SigV4Encoding.encode(uploadId))", accept: [200, 204, 404])
    }

    /// The uploads still open for `key`: (key, upload id). Every open upload of the bucket is listed and the key's
    /// kept: moto (5.2.1) refuses the signature of a `prefix` holding a slash, boto3's own too.
    func openUploads(of key: String) async throws -> [(key: String, uploadId: String)] {
        var found: [(key: String, uploadId: String)] = []
        var markers = ""
        for _ in 0..<1000 {
            let answer: Answer
            do {
                answer = try await send(.GET, key: "", query: "uploads" + markers)
            } catch RemoteError.service(404, "NoSuchUpload", _, _, _, _) {
                break  // rclone's answer when no upload is open
            }
            for upload in S3XML.elements("Upload", in: answer.text) {
                if let open = S3XML.value("Key", in: upload), open == key, let id = S3XML.value("UploadId", in: upload)
                {
                    found.append((open, id))
                }
            }
            guard S3XML.value("IsTruncated", in: answer.text) == "true",
                let next = S3XML.value("NextKeyMarker", in: answer.text)
            else { break }
            let nextId = S3XML.value("NextUploadIdMarker", in: answer.text) ?? ""
            markers = "&key-marker=\(SigV4Encoding.encode(next))&upload-id-marker=\(SigV4Encoding.encode(nextId))"
        }
        return found
    }
}
