import Foundation

/// One request line: `{"id": …, "command": "record.start", "args": {"title": "…"}}`.
public struct RequestLine: Sendable, Equatable {
    /// Echoed back as sent (any JSON value), so clients can match answers to requests; null when absent.
    public var id: JSONValue
    public var command: String
    public var arguments: [String: JSONValue]

    public init(id: JSONValue = .null, command: String, arguments: [String: JSONValue] = [:]) {
        (self.id, self.command, self.arguments) = (id, command, arguments)
    }

    public init(id: JSONValue = .int(1), _ command: Command) {
        self.init(id: id, command: command.name, arguments: command.arguments)
    }

    /// Deepest nesting a request may have: real ones need three levels; a bracket bomb is refused before decoding.
    public static let maxNesting = 32

    /// Parses a line; every problem is a `bad_request` naming what is wrong.
    public static func parse(_ line: Data) throws(ApplianceError) -> RequestLine {
        guard String(data: line, encoding: .utf8) != nil else {
            throw ApplianceError(.badRequest, "request is not valid UTF-8")
        }
        guard nesting(of: line) <= maxNesting else {
            throw ApplianceError(.badRequest, "request nested deeper than \(maxNesting) levels")
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: line)
        } catch {
            throw ApplianceError(.badRequest, "malformed JSON")
        }
        guard case .object(let object) = value else {
            throw ApplianceError(.badRequest, "request must be a JSON object with a \"command\"")
        }
        let id = object["id"] ?? .null
        guard let command = object["command"], command != .null else {
            throw ApplianceError(.badRequest, "missing \"command\"")
        }
        guard case .string(let name) = command else {
            throw ApplianceError(.badRequest, "\"command\" must be a string")
        }
        var arguments: [String: JSONValue] = [:]
        switch object["args"] {
        case nil, .null?: break
        case .object(let args)?: arguments = args
        default: throw ApplianceError(.badRequest, "\"args\" must be an object")
        }
        return RequestLine(id: id, command: name, arguments: arguments)
    }

    /// The deepest nesting of arrays and objects in JSON text (brackets inside strings do not count).
    static func nesting(of text: Data) -> Int {
        var depth = 0
        var deepest = 0
        var inString = false
        var escaped = false
        for byte in text {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                deepest = max(deepest, depth)
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return deepest
    }

    /// The request as one line of JSON.
    public func encoded() throws -> Data {
        try WireFormat.line(Wire(id: id, command: command, args: arguments.isEmpty ? nil : arguments))
    }

    private struct Wire: Encodable {
        var id: JSONValue
        var command: String
        var args: [String: JSONValue]?
    }
}

/// Response lines: `{"id": …, "ok": true, "result": {…}}` or `{"id": …, "ok": false, "error": {"code", "message"}}`.
public enum ResponseLine {
    public static func success(id: JSONValue, result: some Encodable) -> Data {
        do {
            return try WireFormat.line(Success(id: id, result: AnyEncodable(result)))
        } catch {
            return failure(id: id, error: ApplianceError(.internalError, "cannot encode the result: \(error)"))
        }
    }

    public static func failure(id: JSONValue, error: ApplianceError) -> Data {
        (try? WireFormat.line(Failure(id: id, error: error)))
            ?? Data(#"{"error":{"code":"internal","message":"encoding failed"},"id":null,"ok":false}"#.utf8 + [10])
    }

    /// The typed answer to `command` in a response line: its result, or the error the daemon gave.
    public static func decode(_ line: Data, for command: Command) throws -> Result<CommandResult, ApplianceError> {
        if let error = try error(in: line) { return .failure(error) }
        return .success(try CommandResult.decode(for: command, inResponse: line))
    }

    /// The error in a response line; nil when it answers ok.
    public static func error(in line: Data) throws -> ApplianceError? {
        let header = try WireFormat.decoder.decode(Header.self, from: line)
        return header.ok
            ? nil : header.error ?? ApplianceError(.internalError, "the daemon answered an error without a reason")
    }

    private struct Success: Encodable {
        var id: JSONValue
        var ok = true
        var result: AnyEncodable
    }

    private struct Failure: Encodable {
        var id: JSONValue
        var ok = false
        var error: ApplianceError
    }

    private struct Header: Decodable {
        var ok: Bool
        var error: ApplianceError?
    }
}

extension RequestLine {
    /// A bare `args` object (the web API's POST body), with a request line's checks: UTF-8, nesting, an object.
    /// An empty body (no bytes) is no arguments; whitespace alone is not JSON, so it is refused like any malformed
    /// body.
    public static func parseArguments(_ body: Data) throws(ApplianceError) -> [String: JSONValue] {
        if body.isEmpty { return [:] }
        guard String(data: body, encoding: .utf8) != nil else {
            throw ApplianceError(.badRequest, "body is not valid UTF-8")
        }
        guard nesting(of: body) <= maxNesting else {
            throw ApplianceError(.badRequest, "body nested deeper than \(maxNesting) levels")
        }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: body)
        } catch {
            throw ApplianceError(.badRequest, "malformed JSON")
        }
        guard case .object(let arguments) = value else {
            throw ApplianceError(.badRequest, "body must be a JSON object of arguments")
        }
        return arguments
    }
}
