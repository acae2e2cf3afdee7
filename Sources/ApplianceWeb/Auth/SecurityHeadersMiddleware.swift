import HTTPTypes
import Hummingbird

/// The pages' own rules (`HTML.response`: no framing, no type sniffing, no Referer) on every other answer too: the
/// redirects, the API, media and errors (a thrown error is turned into its response first). A page keeps its fuller
/// Content-Security-Policy.
struct SecurityHeadersMiddleware: RouterMiddleware {
    typealias Context = WebContext
    static let headers: HTTPFields = [
        .xFrameOptions: "DENY",
        .contentSecurityPolicy: "frame-ancestors 'none'",
        .xContentTypeOptions: "nosniff",
        .referrerPolicy: "same-origin",
    ]

    func handle(_ request: Request, context: WebContext, next: (Request, WebContext) async throws -> Response)
        async throws -> Response
    {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        for field in Self.headers where response.headers[field.name] == nil { response.headers.append(field) }
        return response
    }
}

extension HTTPField.Name {
    static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
}
