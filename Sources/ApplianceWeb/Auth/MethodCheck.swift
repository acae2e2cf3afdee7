import HTTPTypes
import Hummingbird

/// A path the router serves, asked with a method it does not: 405 with `Allow` listing the methods it does
/// (RFC 9110 §15.5.6), rather than the router's 404, which would say the path does not exist.
struct MethodCheck: RouterMiddleware {
    typealias Context = WebContext
    let table: RouteTable

    func handle(_ request: Request, context: WebContext, next: (Request, WebContext) async throws -> Response)
        async throws -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = table.methods(serving: request.uri.path)
            guard !allowed.isEmpty, !allowed.contains(request.method.rawValue) else { throw error }
            var refusal = WebError(
                .methodNotAllowed,
                "\(request.method) is not served at \(request.uri.path) (allowed: \(allowed.joined(separator: ", ")))")
            refusal.extraHeaders[.allow] = allowed.joined(separator: ", ")
            throw refusal
        }
    }
}

extension RouteTable {
    /// The methods of the routes whose path template (`/media/{id}/video`) matches `path`, sorted.
    func methods(serving path: String) -> [String] {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let matching = all.filter { entry in
            let template = entry.path.split(separator: "/", omittingEmptySubsequences: false)
            return template.count == segments.count
                && zip(template, segments).allSatisfy {
                    $0 == $1 || ($0.hasPrefix("{") && $0.hasSuffix("}") && !$1.isEmpty)
                }
        }
        return Array(Set(matching.map(\.method))).sorted()
    }
}
