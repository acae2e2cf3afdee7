import ApplianceProtocol
import Foundation
import HummingbirdTesting
import XCTest

@testable import ApplianceWeb

/// The API's OpenAPI document against the router itself: every route of `/api/routes` is in `/api/openapi.json`
/// (or is a page), and the document names no route the router lacks, with ONVIF on and off. The role the document
/// gives is the one the router enforces, and each command's documented arguments are the ones its parser takes.
/// (schemathesis runs the document against a real daemon: EndToEndTests' APIFuzzTests.)
final class APIContractTests: XCTestCase {
    struct Table: Decodable {
        struct Entry: Decodable {
            var method: String
            var path: String
            var requires: String
        }
        var items: [Entry]
    }

    private func routesAndDocument(onvif: Bool) async throws -> (routes: [Table.Entry], document: [String: Any]) {
        let web = try WebHarness(change: { $0.onvif.enabled = onvif })
        nonisolated(unsafe) var result: ([Table.Entry], [String: Any])?
        try await web.test { client in
            let routes = try await client.request("/api/routes").decode(Table.self).items
            let answer = try await client.request("/api/openapi.json")
            XCTAssertEqual(answer.status, .ok)
            XCTAssertEqual(answer.headers[.contentType], "application/json; charset=utf-8")
            let document = try XCTUnwrap(JSONSerialization.jsonObject(with: answer.data) as? [String: Any])
            result = (routes, document)
        }
        return try XCTUnwrap(result)
    }

    /// `METHOD /path` of each operation, and its `x-appliance-role`.
    private func operations(_ document: [String: Any]) throws -> [String: String] {
        let paths = try XCTUnwrap(document["paths"] as? [String: [String: [String: Any]]])
        var result: [String: String] = [:]
        for (path, methods) in paths {
            for (method, operation) in methods {
                result["\(method.uppercased()) \(path)"] = operation["x-appliance-role"] as? String
            }
        }
        return result
    }

    func testEveryRouteIsDocumentedAndEveryDocumentedRouteExists() async throws {
        for onvif in [false, true] {
            let (routes, document) = try await routesAndDocument(onvif: onvif)
            XCTAssertEqual(document["openapi"] as? String, "3.1.0")
            let documented = try operations(document)
            let commands = Set(Command.Name.allCases.map { "POST /api/commands/\($0.rawValue)" })
            var expected: Set<String> = []
            for route in routes {
                let key = "\(route.method) \(route.path)"
                if APIOperations.pages.contains(key) { continue }
                if key == "POST /api/commands/{name}" { expected.formUnion(commands) } else { expected.insert(key) }
            }
            XCTAssertEqual(
                Set(documented.keys).subtracting(expected).sorted(), [], "documented, not served (onvif \(onvif))")
            XCTAssertEqual(
                expected.subtracting(documented.keys).sorted(), [], "served, not documented (onvif \(onvif))")
            let tableKeys = Set(routes.map { "\($0.method) \($0.path)" })
            XCTAssertEqual(APIOperations.pages.subtracting(tableKeys).sorted(), [], "every page listed is a route")
            XCTAssertEqual(tableKeys.contains("POST /onvif/device_service"), onvif)
            // The role is the router's.
            for route in routes
            where route.requires != "command" && !APIOperations.pages.contains("\(route.method) \(route.path)") {
                XCTAssertEqual(
                    documented["\(route.method) \(route.path)"], route.requires, "\(route.method) \(route.path)")
            }
            for name in Command.Name.allCases {
                XCTAssertEqual(
                    documented["POST /api/commands/\(name.rawValue)"], name.needsAdmin ? "admin" : "viewer",
                    name.rawValue)
            }
        }
    }

    /// The recordings page answers 404 for a `group` that is not there (the daemon's list): the document says so
    /// (schemathesis found it undocumented, APIFuzzTests).
    func testTheRecordingsPagesNotFoundIsDocumented() async throws {
        let (_, document) = try await routesAndDocument(onvif: false)
        let paths = try XCTUnwrap(document["paths"] as? [String: [String: [String: Any]]])
        let responses = try XCTUnwrap(paths["/api/recordings"]?["get"]?["responses"] as? [String: Any])
        XCTAssertNotNil(responses["404"], "\(responses.keys.sorted())")
    }

    /// A query parameter given twice (`?day=&day=2026-11-29`) is a 400 naming it, on every API route, and the
    /// document lists that 400 for each (schemathesis found the second value silently dropped, APIFuzzTests).
    func testARepeatedQueryParameterIsRefusedAndDocumented() async throws {
        try await WebHarness().test { client in
            let twice = try await client.request("/api/activity?day=&day=2026-11-29")
            XCTAssertEqual(twice.status, .badRequest, twice.text)
            XCTAssertTrue(twice.text.contains("day is given more than once"), twice.text)
            let status = try await client.request("/api/status?day=1&day=2")
            XCTAssertEqual(status.status, .badRequest, status.text)
            let once = try await client.request("/api/openapi.json?day=1")
            XCTAssertEqual(once.status, .ok, once.text)
        }
        let (_, document) = try await routesAndDocument(onvif: false)
        let paths = try XCTUnwrap(document["paths"] as? [String: [String: [String: Any]]])
        for (path, methods) in paths where path.hasPrefix("/api/") {
            for (method, operation) in methods {
                let responses = try XCTUnwrap(operation["responses"] as? [String: Any])
                XCTAssertNotNil(responses["400"], "\(method) \(path)")
            }
        }
    }

    /// Each command's documented arguments are what its parser takes: every one is known to it (no "unknown
    /// argument"), and one the document does not name is refused.
    func testEachCommandsDocumentedArgumentsAreItsParsers() throws {
        for name in Command.Name.allCases {
            let spec = try XCTUnwrap(CommandOperations.arguments[name], "\(name.rawValue) is documented")
            for key in spec.properties.keys {
                do {
                    _ = try Command(name: name.rawValue, arguments: [key: .null])
                } catch {
                    XCTAssertFalse(
                        error.message.contains("unknown argument"), "\(name.rawValue).\(key): \(error.message)")
                }
            }
            XCTAssertThrowsError(
                try Command(name: name.rawValue, arguments: ["not_an_argument": .int(1)]), name.rawValue
            ) { error in
                XCTAssertTrue(
                    (error as? ApplianceError)?.message.contains("unknown argument") == true,
                    "\(name.rawValue): \(error)")
            }
        }
    }

    /// A path the router serves asked with another method: 405 and `Allow`, not a 404 saying it does not exist.
    func testAnotherMethodOnAServedPathIs405WithAllow() async throws {
        try await WebHarness().test { client in
            let trace = try await client.request("/api/status", method: .put)
            XCTAssertEqual(trace.status, .methodNotAllowed, trace.text)
            XCTAssertEqual(trace.headers[.allow], "GET")
            XCTAssertEqual(trace.errorCode, "method_not_allowed")
            let media = try await client.request("/media/0b7c2a4e-1111-4222-8333-944455556666/video", method: .delete)
            XCTAssertEqual(media.headers[.allow], "GET, HEAD")
            let nothing = try await client.request("/api/nothing-here", method: .put)
            XCTAssertEqual(nothing.status, .notFound)
        }
    }
}
