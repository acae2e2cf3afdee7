import ApplianceProtocol
import HTTPTypes

/// One operation of the API's document: a route of the router (its method and path, exactly as `/api/routes` lists
/// it), what it takes and what it answers. The role is not written here: it is `RoutePolicy`'s, the rule the router
/// enforces, so the document cannot disagree with it.
struct APIOperation: Sendable {
    typealias Method = HTTPRequest.Method

    struct Parameter: Sendable {
        enum Place: String, Sendable { case path, query }
        var name: String
        var place: Place
        var schema: JSONValue
        var required = false

        static func path(_ name: String, _ schema: JSONValue = JSONSchema.string(minLength: 1)) -> Parameter {
            Parameter(name: name, place: .path, schema: schema, required: true)
        }

        static func query(_ name: String, _ schema: JSONValue, required: Bool = false) -> Parameter {
            Parameter(name: name, place: .query, schema: schema, required: required)
        }
    }

    /// A successful answer: its status, media type and (for JSON) schema, and the headers it always carries.
    struct Reply: Sendable {
        var status: Int
        var description: String
        var type: String?
        var schema: JSONValue?
        var headers: [String] = []

        static func json(_ schema: JSONValue, _ description: String = "OK", status: Int = 200) -> Reply {
            Reply(status: status, description: description, type: "application/json", schema: schema)
        }

        static func media(_ type: String, _ description: String, status: Int = 200, headers: [String] = []) -> Reply {
            Reply(status: status, description: description, type: type, schema: JSONSchema.bytes, headers: headers)
        }

        static func empty(_ description: String, status: Int = 200, headers: [String] = []) -> Reply {
            Reply(status: status, description: description, headers: headers)
        }
    }

    /// The features a route exists only with (the others always exist).
    enum Feature: String, Sendable { case onvif }

    var method: Method
    var path: String
    var summary: String
    var parameters: [Parameter] = []
    /// The request body's media type and schema, when it takes one.
    var body: (type: String, schema: JSONValue)?
    /// Whether a request must carry the body (a command with no required argument takes none: `{}` is assumed).
    var bodyRequired: Bool {
        body.map { $0.type != "application/json" || $0.schema.objectValue?["required"] != nil } ?? false
    }
    var replies: [Reply]
    /// The error statuses besides those its role and body imply.
    var errors: Set<Int> = []
    var feature: Feature?
    /// Overrides `RoutePolicy` for `/api/commands/{name}`'s operations, whose role is each command's.
    var commandRole: UserRole?

    var key: String { "\(method.rawValue) \(path)" }
}
