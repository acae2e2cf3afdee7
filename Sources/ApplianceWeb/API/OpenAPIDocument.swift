import ApplianceProtocol
import Foundation

/// The API's contract, OpenAPI 3.1, served at `/api/openapi.json`: every route of the router but the pages, with
/// its parameters and bounds, bodies, answers, errors and role (`x-appliance-role`, from `RoutePolicy`, the rule the
/// router enforces). Operations of a feature that is off (ONVIF) are left out, as the router leaves their routes out.
enum OpenAPIDocument {
    static func make(features: Set<APIOperation.Feature>) -> JSONValue {
        var paths: [String: [String: JSONValue]] = [:]
        for operation in APIOperations.all where operation.feature.map(features.contains) ?? true {
            paths[operation.path, default: [:]][operation.method.rawValue.lowercased()] = render(operation)
        }
        return .object([
            "openapi": "3.1.0",
            "info": .object([
                "title": "appliance", "version": .string(ApplianceVersion.current),
                "description":
                    """
                The recording appliance's HTTP API. JSON as `ctl --json` prints it (snake_case, ISO 8601 \
                times); errors are `{\"error\": {\"code\", \"message\"}}` (docs/ROUTES.md). `x-appliance-role` \
                is the role each operation needs.
                """,
            ]),
            "components": .object(["schemas": .object(APISchemas.all), "securitySchemes": securitySchemes]),
            "security": .array(["bearer", "basic", "session"].map { .object([$0: .array([])]) }),
            "paths": .object(paths.mapValues(JSONValue.object)),
        ])
    }

    /// The document's bytes (sorted keys, so the same document is the same bytes).
    static func data(features: Set<APIOperation.Feature>) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(make(features: features))
    }

    static let securitySchemes: JSONValue = .object([
        "bearer": .object([
            "type": "http", "scheme": "bearer",
            "description": "an account's API token (`ctl user token`), or the token_file's password",
        ]),
        "basic": .object(["type": "http", "scheme": "basic", "description": "an account's name and password"]),
        "session": .object([
            "type": "apiKey", "in": "cookie", "name": "appliance_session",
            "description": "the login page's session; a change also needs its CSRF token in X-CSRF-Token",
        ]),
    ])

    static func role(_ operation: APIOperation) -> String {
        if let role = operation.commandRole { return role.rawValue }
        return RoutePolicy.requirement(method: operation.method, path: operation.path).rawValue
    }

    static func render(_ operation: APIOperation) -> JSONValue {
        let role = role(operation)
        var object: [String: JSONValue] = [
            "operationId": .string(operation.key), "summary": .string(operation.summary),
            "x-appliance-role": .string(role),
            "responses": .object(responses(operation, role: role)),
        ]
        if role == RouteRequirement.anyone.rawValue { object["security"] = .array([]) }
        if !operation.parameters.isEmpty {
            object["parameters"] = .array(
                operation.parameters.map { parameter in
                    .object([
                        "name": .string(parameter.name), "in": .string(parameter.place.rawValue),
                        "required": .bool(parameter.required),
                        "schema": parameter.schema,
                    ])
                })
        }
        if let body = operation.body {
            object["requestBody"] = .object([
                "required": .bool(operation.bodyRequired),
                "content": .object([body.type: .object(["schema": body.schema])]),
            ])
        }
        return .object(object)
    }

    /// Its answers, and the errors its role, parameters and body imply besides its own.
    static func responses(_ operation: APIOperation, role: String) -> [String: JSONValue] {
        var result: [String: JSONValue] = [:]
        for reply in operation.replies {
            var rendered: [String: JSONValue] = ["description": .string(reply.description)]
            if let type = reply.type {
                rendered["content"] = .object([type: .object(reply.schema.map { ["schema": $0] } ?? [:])])
            }
            if !reply.headers.isEmpty {
                rendered["headers"] = .object(
                    Dictionary(
                        uniqueKeysWithValues: reply.headers.map {
                            ($0, JSONValue.object(["schema": JSONSchema.string()]))
                        }))
            }
            result[String(reply.status)] = .object(rendered)
        }
        var errors = operation.errors
        if role != RouteRequirement.anyone.rawValue { errors.formUnion([401, 403, 429]) }
        // Any API request may repeat a query parameter, which `SingleValuedQuery` refuses.
        if !operation.parameters.isEmpty || operation.path.hasPrefix("/api/") { errors.insert(400) }
        if operation.body != nil { errors.formUnion([400, 408, 413, 415]) }
        if operation.parameters.contains(where: { $0.place == .path }) { errors.insert(404) }
        for status in errors where result[String(status)] == nil {
            result[String(status)] = .object([
                "description": .string(HTTPStatusText.reason(status)),
                "content": .object(["application/json": .object(["schema": JSONSchema.ref("Error")])]),
            ])
        }
        return result
    }
}

/// The reason phrases the document uses for the errors it lists.
enum HTTPStatusText {
    static func reason(_ status: Int) -> String {
        [
            400: "bad request: the message names the parameter", 401: "no login, or a wrong one",
            403: "the role is too low, or a foreign origin",
            404: "no such thing", 408: "the body did not arrive within 10 s", 409: "the device's state refuses it",
            413: "a body over 64 KiB",
            415: "a body not declared as its type", 416: "a range outside the file",
            429: "too many (guesses, snapshots): see Retry-After",
            503: "no live picture within 5 s (the camera is not delivering)",
        ][status] ?? "error"
    }
}
