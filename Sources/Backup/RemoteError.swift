import Foundation

/// What went wrong talking to the backup server (WebDAV or S3), classified for the retry policy.
public enum RemoteError: Error, CustomStringConvertible, Sendable {
    /// The server answered with an unexpected status (`retryAfter` from a Retry-After header, in seconds).
    case status(Int, method: String, path: String, retryAfter: Double?)
    /// An S3 service's error: the HTTP status and the service's code (`NoSuchBucket`, `SignatureDoesNotMatch`…).
    case service(Int, code: String, message: String, method: String, path: String, retryAfter: Double?)
    /// No answer: connection refused or reset, timeout, TLS failure…
    case transport(String)
    /// The upload arrived with the wrong size.
    case verification(String)

    public var description: String {
        switch self {
        case .status(let code, let method, let path, _): "\(method) \(path): HTTP \(code)"
        case .service(let status, let code, let message, let method, let path, _):
            "\(method) \(path): HTTP \(status) \(code)\(message.isEmpty ? "" : " (\(message))")"
        case .transport(let message): "network: \(message)"
        case .verification(let message): "verification failed: \(message)"
        }
    }
}
