import Hummingbird

/// 400 for an API request that gives one query parameter more than once (`?day=a&day=b`). Every parameter the API
/// document declares is a single value, and a handler reads the first; without this a second, contradicting value
/// would be silently dropped (schemathesis sends such requests and rightly expects a refusal).
struct SingleValuedQuery<Next: HTTPResponder>: HTTPResponder where Next.Context == WebContext {
    let next: Next

    func respond(to request: Request, context: WebContext) async throws -> Response {
        var seen = Set<Substring>()
        for (key, _) in request.uri.queryParameters where !seen.insert(key).inserted {
            throw WebError(.badRequest, "query parameter \(key.prefix(40)) is given more than once; give it once")
        }
        return try await next.respond(to: request, context: context)
    }
}
