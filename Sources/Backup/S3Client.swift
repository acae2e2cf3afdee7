import ApplianceBase
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import SigV4

/// A small S3 client: the object and multipart calls a backup needs, each signed with Signature V4 over the SHA-256
/// of its body (S3 checks it against what arrives), bodies streamed from disk. A RequestTimeTooSkewed answer sets
/// the offset to the server's clock, which every later request is signed with, and the request is sent once more.
struct S3Client: Sendable {
    let http: HTTPClient
    let location: S3Location
    let signer: SigV4Signer
    /// Headers every new object gets (storage class, server-side encryption).
    let objectHeaders: [(name: String, value: String)]
    /// The server's clock minus this machine's, in seconds, learnt from a RequestTimeTooSkewed answer.
    let clockOffset = Locked<TimeInterval>(0)

    enum Body: Sendable {
        case empty
        case data(Data)
        /// `length` bytes of a file from `start`.
        case file(String, start: Int64, length: Int64, rateKbps: Int, progress: @Sendable (Int64) -> Void)
    }

    /// A finished exchange: the status, the headers and the (small) body as text.
    struct Answer: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var text: String
    }

    /// Sends a signed request and reads its answer; a status outside `accept` throws `RemoteError.service` with the
    /// service's error code, a transport failure `RemoteError.transport`.
    func send(
        _ method: HTTPMethod, key: String, query: String = "", headers: [(name: String, value: String)] = [],
        body: Body = .empty, sha256: String = SigV4Signer.emptyPayloadHash, accept: Set<Int> = [200],
        timeout: TimeAmount = .seconds(60)
    ) async throws -> Answer {
        var attempt = 0
        while true {
            attempt += 1
            let answer = try await exchange(
                method, key: key, query: query, headers: headers, body: body, sha256: sha256, timeout: timeout)
            if accept.contains(answer.status) { return answer }
            let code = S3XML.value("Code", in: answer.text) ?? ""
            let message = S3XML.value("Message", in: answer.text) ?? ""
            if Self.isSkew(code: code, message: message), attempt == 1, let server = Self.serverTime(answer) {
                clockOffset.withLock { $0 = server.timeIntervalSinceNow }
                continue
            }
            throw RemoteError.service(
                answer.status, code: code.isEmpty ? Self.reason(answer.status) : code,
                message: message, method: method.rawValue,
                path: key.isEmpty ? location.bucket : key,
                retryAfter: answer.headers.first(name: "Retry-After").flatMap(WebDAVClient.retryAfter))
        }
    }

    private func exchange(
        _ method: HTTPMethod, key: String, query: String, headers: [(name: String, value: String)],
        body: Body, sha256: String, timeout: TimeAmount
    ) async throws -> Answer {
        let signed = SigV4Request(
            method: method.rawValue, path: location.requestPath(key: key), query: query,
            headers: [("Host", location.host)] + headers, payloadHash: sha256)
        let now = Date().addingTimeInterval(clockOffset.withLock { $0 })
        var request = HTTPClientRequest(url: location.origin + signer.encodedTarget(signed))
        request.method = method
        for (name, value) in signed.headers + signer.signingHeaders(for: signed, date: now) {
            request.headers.add(name: name, value: value)
        }
        switch body {
        case .empty: break
        case .data(let data): request.body = .bytes(ByteBuffer(bytes: data))
        case .file(let path, let start, let length, let rateKbps, let progress):
            request.body = FileBody.stream(
                path, start: start, length: length, rateKbps: rateKbps, http: http, progress: progress)
        }
        do {
            let response = try await http.execute(request, timeout: timeout)
            let text = String(buffer: try await response.body.collect(upTo: 4 << 20))
            return Answer(status: Int(response.status.code), headers: response.headers, text: text)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw RemoteError.transport(BackupTrust.explain(error) ?? "\(error)")
        }
    }

    /// The request's time is too far from the server's: S3's RequestTimeTooSkewed, or rclone's AccessDenied for a
    /// clock behind ("…difference between the request time and the server's time…").
    static func isSkew(code: String, message: String) -> Bool {
        code == "RequestTimeTooSkewed" || (code == "AccessDenied" && message.lowercased().contains("request time"))
    }

    /// The server's time in a RequestTimeTooSkewed answer: its ServerTime element, else its Date header.
    static func serverTime(_ answer: Answer) -> Date? {
        if let text = S3XML.value("ServerTime", in: answer.text) {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text) { return date }
        }
        guard let header = answer.headers.first(name: "Date") else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: header)
    }

    /// A code for an error answer without a body (HEAD): `NotFound`, `Forbidden`, `HTTP 500`.
    static func reason(_ status: Int) -> String {
        switch status {
        case 403: "Forbidden"
        case 404: "NotFound"
        default: "HTTP \(status)"
        }
    }
}
