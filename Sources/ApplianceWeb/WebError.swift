import ApplianceProtocol
import Foundation
import Hummingbird

/// An HTTP error with a one-line reason, answered as `{"error": {"code", "message"}}` (the socket's error object)
/// on the API and media routes, and as a short page elsewhere.
struct WebError: Error, HTTPResponseError {
    let status: HTTPResponse.Status
    let code: String
    let message: String
    var extraHeaders = HTTPFields()

    init(_ status: HTTPResponse.Status, _ message: String, code: String? = nil) {
        self.status = status
        self.message = message
        self.code = code ?? Self.code(for: status)
    }

    /// An appliance error, with the HTTP status its stable code maps to.
    init(_ error: ApplianceError) {
        status =
            switch error.code {
            case .badRequest: .badRequest
            case .unknownCommand, .notFound: .notFound
            // Unavailable and busy are the device's state (no speaker, backup off, no other camera; a clip being
            // finalised): the request conflicts with it, and the server is fine, so not a 5xx. Busy says when to retry.
            case .conflict, .unavailable, .busy: .conflict
            case .rateLimited: .tooManyRequests
            case .internalError: .internalServerError
            }
        code = error.code.rawValue
        message = error.message
        if error.code == .busy { extraHeaders[.retryAfter] = "1" }
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = extraHeaders
        headers[.contentType] = "application/json; charset=utf-8"
        headers[.cacheControl] = "no-store"
        let data = (try? WireFormat.encoder.encode(ErrorBody(error: .init(code: code, message: message)))) ?? Data()
        return Response(
            status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data + [0x0A])))
    }

    private static func code(for status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "bad_request"
        case 401: "unauthorized"
        case 403: "forbidden"
        case 404: "not_found"
        case 405: "method_not_allowed"
        case 409: "conflict"
        case 408: "timeout"
        case 413: "too_large"
        case 415: "unsupported_media_type"
        case 429: "too_many_requests"
        default: status.code >= 500 ? "internal" : "bad_request"
        }
    }
}

/// `{"error": {"code", "message"}}`.
private struct ErrorBody: Encodable {
    struct Detail: Encodable {
        var code: String
        var message: String
    }
    var error: Detail
}
