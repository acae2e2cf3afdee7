import Crypto
import Foundation

/// An access key for AWS Signature Version 4: the key's id, its secret, and for temporary credentials the session
/// token (sent as `X-Amz-Security-Token`).
public struct SigV4Credentials: Sendable, Equatable {
    public var accessKey: String
    public var secretKey: String
    public var sessionToken: String?

    public init(accessKey: String, secretKey: String, sessionToken: String? = nil) {
        (self.accessKey, self.secretKey, self.sessionToken) = (accessKey, secretKey, sessionToken)
    }
}

/// A request as it is signed: the method, the path and query as they mean (not yet percent-encoded: the signer
/// encodes them and the caller sends `encodedTarget`), the headers in order, and the SHA-256 of the body in hex
/// (`SigV4Signer.unsignedPayload` for a body that is not hashed).
public struct SigV4Request: Sendable, Equatable {
    public var method: String
    public var path: String
    /// `name=value` pairs joined by `&`, each part percent-encoded or not (it is decoded first); "" for none.
    public var query: String
    public var headers: [(name: String, value: String)]
    public var payloadHash: String

    public init(
        method: String, path: String, query: String = "", headers: [(name: String, value: String)] = [],
        payloadHash: String = SigV4Signer.emptyPayloadHash
    ) {
        (self.method, self.path, self.query, self.headers, self.payloadHash) = (
            method, path, query, headers, payloadHash
        )
    }

    public static func == (a: SigV4Request, b: SigV4Request) -> Bool {
        a.method == b.method && a.path == b.path && a.query == b.query && a.payloadHash == b.payloadHash
            && a.headers.map(\.name) == b.headers.map(\.name) && a.headers.map(\.value) == b.headers.map(\.value)
    }
}

/// AWS Signature Version 4 (the `Authorization: AWS4-HMAC-SHA256 …` header), as S3 and every S3-compatible store
/// check it: the canonical request (method, encoded path, sorted query, sorted and trimmed headers, the body's hash),
/// the string to sign over its hash with the date and scope, and the HMAC-SHA256 chain of the secret over date,
/// region, service and "aws4_request". Checked against AWS's published test suite (SigV4Tests).
public struct SigV4Signer: Sendable {
    public static let emptyPayloadHash = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    public static let unsignedPayload = "UNSIGNED-PAYLOAD"
    static let algorithm = "AWS4-HMAC-SHA256"

    public var credentials: SigV4Credentials
    public var region: String
    public var service: String
    /// Remove `.` and `..` segments and repeated slashes from the path before signing (every AWS service but S3,
    /// whose object keys are taken as they are).
    public var normalizePath: Bool

    public init(credentials: SigV4Credentials, region: String, service: String = "s3", normalizePath: Bool = false) {
        (self.credentials, self.region, self.service, self.normalizePath) = (
            credentials, region, service, normalizePath
        )
    }

    /// The headers to add to `request` so that it is signed at `date`: `X-Amz-Date`, `X-Amz-Security-Token` with a
    /// session token, `x-amz-content-sha256` when `signBody` (S3 requires it), and `Authorization`. Every header the
    /// request already has is signed.
    public func signingHeaders(for request: SigV4Request, date: Date, signBody: Bool = true) -> [(
        name: String, value: String
    )] {
        sign(request, date: date, signBody: signBody).headers
    }

    /// Every step of signing `request`: the canonical request, the string to sign, the signature, and the headers to
    /// add (the Authorization header last).
    func sign(_ request: SigV4Request, date: Date, signBody: Bool)
        -> (canonicalRequest: String, stringToSign: String, signature: String, headers: [(name: String, value: String)])
    {
        var added: [(name: String, value: String)] = [("X-Amz-Date", Self.amzDate(date))]
        if let token = credentials.sessionToken { added.append(("X-Amz-Security-Token", token)) }
        if signBody { added.append(("x-amz-content-sha256", request.payloadHash)) }
        var signed = request
        signed.headers += added
        let canonical = canonicalRequest(signed)
        let toSign = stringToSign(canonicalRequest: canonical.text, date: date)
        let signature = self.signature(stringToSign: toSign, date: date)
        added.append(
            (
                "Authorization",
                "\(Self.algorithm) Credential=\(credentials.accessKey)/\(scope(date)), "
                    + "SignedHeaders=\(canonical.signedHeaders), Signature=\(signature)"
            ))
        return (canonical.text, toSign, signature, added)
    }

    /// The path and query to put on the request line, encoded as they were signed.
    public func encodedTarget(_ request: SigV4Request) -> String {
        let query = SigV4Encoding.canonicalQuery(request.query)
        return SigV4Encoding.canonicalPath(request.path, normalize: normalizePath) + (query.isEmpty ? "" : "?" + query)
    }

    /// The canonical request and its signed header names (`host;x-amz-date`).
    func canonicalRequest(_ request: SigV4Request) -> (text: String, signedHeaders: String) {
        let headers = SigV4Encoding.canonicalHeaders(request.headers)
        let signedHeaders = headers.map(\.name).joined(separator: ";")
        let text = [
            request.method, SigV4Encoding.canonicalPath(request.path, normalize: normalizePath),
            SigV4Encoding.canonicalQuery(request.query), headers.map { "\($0.name):\($0.value)\n" }.joined(),
            signedHeaders, request.payloadHash,
        ].joined(separator: "\n")
        return (text, signedHeaders)
    }

    func stringToSign(canonicalRequest: String, date: Date) -> String {
        [Self.algorithm, Self.amzDate(date), scope(date), Self.hex(SHA256.hash(data: Data(canonicalRequest.utf8)))]
            .joined(separator: "\n")
    }

    func signature(stringToSign: String, date: Date) -> String {
        var key = SymmetricKey(data: Data("AWS4\(credentials.secretKey)".utf8))
        for part in [Self.day(date), region, service, "aws4_request"] {
            key = SymmetricKey(data: Data(HMAC<SHA256>.authenticationCode(for: Data(part.utf8), using: key)))
        }
        return Self.hex(HMAC<SHA256>.authenticationCode(for: Data(stringToSign.utf8), using: key))
    }

    func scope(_ date: Date) -> String { "\(Self.day(date))/\(region)/\(service)/aws4_request" }

    /// `20150830T123600Z`
    public static func amzDate(_ date: Date) -> String { utc("yyyyMMdd'T'HHmmss'Z'", date) }

    static func day(_ date: Date) -> String { utc("yyyyMMdd", date) }

    private static func utc(_ format: String, _ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter.string(from: date)
    }

    /// Lower-case hex of a digest or MAC.
    public static func hex<D: Sequence>(_ bytes: D) -> String where D.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    /// The SHA-256 of `data` in hex, for `payloadHash`.
    public static func sha256(_ data: Data) -> String { hex(SHA256.hash(data: data)) }
}
