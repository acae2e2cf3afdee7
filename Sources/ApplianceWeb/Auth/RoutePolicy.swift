import Accounts
import ApplianceBase
import ApplianceProtocol
import HTTPTypes
import Hummingbird

/// Who may use a route, decided once when the route is added (`GuardedRouter`), from its method and path.
enum RouteRequirement: String, Sendable, Encodable {
    /// No login (the login page, assets, share links, ONVIF's SOAP with its own credentials).
    case anyone
    /// Any logged-in account, and `[web] public_read` for GETs.
    case viewer
    case admin
    /// `POST /api/commands/{name}`: admin unless the named command is one a viewer may send
    /// (`Command.Name.needsAdmin`).
    case command
}

/// The rule, in one place: reading is for viewers, changing is for admins; the exceptions are named here. A new
/// route is covered without a line of its own (a new POST is admin-only until it is listed as a viewer's).
enum RoutePolicy {
    /// What a viewer may send besides reading: logging out, and its own live view over WebRTC.
    static let viewerChanges: Set<String> = [
        "POST /logout", "POST /api/whep", "POST /api/whep/{id}/sound", "DELETE /api/whep/{id}",
    ]
    /// Reads that are for admins: the settings, the configuration, share links (each opens a clip), the accounts and
    /// their sessions, and this table.
    static let adminReads: Set<String> = [
        "GET /settings", "GET /api/config", "GET /api/shares", "GET /api/users", "GET /api/sessions",
        "GET /api/routes",
    ]

    static func requirement(method: HTTPRequest.Method, path: String) -> RouteRequirement {
        let key = "\(method.rawValue) \(path)"
        if AccessMiddleware.isOpen(path) { return .anyone }
        if path == "/api/commands/{name}" { return .command }
        if adminReads.contains(key) || adminReads.contains("GET \(path)") && method == .head { return .admin }
        if method == .get || method == .head || viewerChanges.contains(key) { return .viewer }
        return .admin
    }
}

/// Every route the dashboard serves, with what it requires: recorded as routes are added, served at `/api/routes`
/// (admins) so that tests and API users enumerate the router itself.
final class RouteTable: Sendable {
    struct Entry: Sendable, Encodable, Equatable {
        var method: String
        var path: String
        var requires: RouteRequirement
    }
    private let entries = Locked<[Entry]>([])

    var all: [Entry] { entries.withLock { $0 } }

    func add(_ entry: Entry) { entries.withLock { $0.append(entry) } }
}

/// The router every route is added through: each responder is wrapped in its role check before it reaches
/// Hummingbird's router, so no route can be added without one.
struct GuardedRouter: RouterMethods {
    typealias Context = WebContext
    let router: Router<WebContext>
    let table: RouteTable

    @discardableResult
    func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method, responder: Responder) -> Self
    where Responder.Context == WebContext {
        let requirement = RoutePolicy.requirement(method: method, path: path.description)
        table.add(.init(method: method.rawValue, path: path.description, requires: requirement))
        if path.description.hasPrefix("/api/") {
            router.on(
                path, method: method,
                responder: RoleCheck(requirement: requirement, next: SingleValuedQuery(next: responder)))
        } else {
            router.on(path, method: method, responder: RoleCheck(requirement: requirement, next: responder))
        }
        return self
    }

    func add(middleware: any MiddlewareProtocol<Request, Response, WebContext>) -> Self {
        router.add(middleware: middleware)
        return self
    }
}

/// 403 for a role too low (who is asking was settled by `AccessMiddleware`: a missing login is 401 there).
struct RoleCheck<Next: HTTPResponder>: HTTPResponder where Next.Context == WebContext {
    let requirement: RouteRequirement
    let next: Next

    func respond(to request: Request, context: WebContext) async throws -> Response {
        let needed: UserRole?
        switch requirement {
        case .anyone: needed = nil
        case .viewer: needed = .viewer
        case .admin: needed = .admin
        case .command:
            let name = context.parameters.get("name").flatMap(Command.Name.init(rawValue:))
            needed = name?.needsAdmin == false ? .viewer : .admin
        }
        if let needed, context.access.role.map({ $0 < needed }) ?? true {
            let who =
                context.access.identity.map { "\"\($0.name)\" is a \($0.role.rawValue)" } ?? "reading without a login"
            throw WebError(
                .forbidden, "\(request.method) \(request.uri.path) needs the \(needed.rawValue) role (\(who))")
        }
        return try await next.respond(to: request, context: context)
    }
}
