import HTTPTypes
import Hummingbird

/// On a server that speaks HTTPS, a request that came as plain HTTP gets no content, only a redirect to the same
/// address over HTTPS (301 for GET and HEAD, 308 otherwise, so a form's POST stays a POST). ONVIF's SOAP is the one
/// exception when ONVIF is on: NVRs and Home Assistant's ONVIF client only speak it over HTTP, and it carries its
/// own digest login (WS-UsernameToken), never a password in clear.
struct SecureTransportMiddleware: RouterMiddleware {
    typealias Context = WebContext
    let plainONVIF: Bool

    func handle(_ request: Request, context: WebContext, next: (Request, WebContext) async throws -> Response)
        async throws -> Response
    {
        guard request.headers[.applianceTransport] == ConnectionTransport.plain.rawValue else {
            return try await next(request, context)
        }
        if plainONVIF && request.uri.path.hasPrefix("/onvif/") { return try await next(request, context) }
        guard let host = request.head.authority, !host.isEmpty else {
            return Response(status: .badRequest, headers: [.connection: "close"])
        }
        let status: HTTPResponse.Status =
            request.method == .get || request.method == .head ? .movedPermanently : .permanentRedirect
        return Response(
            status: status, headers: [.location: "https://\(host)\(request.uri.description)", .connection: "close"])
    }
}
