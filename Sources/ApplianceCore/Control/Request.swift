import Foundation

/// One parsed request line: `{"id": …, "command": "record.start", "args": {"title": "…"}}`.
public struct Request: @unchecked Sendable {
    /// Echoed back as-is (any JSON value), so clients can match answers to requests.
    public var id: Any?
    public var command: String
    public var args: [String: Any]

    /// Parses a line; every problem is a `bad_request` naming what is wrong.
    public static func parse(_ line: Data) throws -> Request {
        guard String(data: line, encoding: .utf8) != nil else {
            throw ControlError(.badRequest, "request is not valid UTF-8")
        }
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: line, options: [.fragmentsAllowed])
        } catch {
            throw ControlError(.badRequest, "malformed JSON")
        }
        guard let dict = object as? [String: Any] else {
            throw ControlError(.badRequest, "request must be a JSON object with a \"command\"")
        }
        guard let command = dict["command"] else { throw ControlError(.badRequest, "missing \"command\"") }
        guard let name = command as? String else { throw ControlError(.badRequest, "\"command\" must be a string") }
        var args: [String: Any] = [:]
        if let raw = dict["args"], !(raw is NSNull) {
            guard let object = raw as? [String: Any] else { throw ControlError(.badRequest, "\"args\" must be an object") }
            args = object
        }
        return Request(id: dict["id"], command: name, args: args)
    }

    /// An optional string argument; a value of another type is a `bad_request`.
    public func string(_ key: String) throws -> String? {
        guard let value = args[key], !(value is NSNull) else { return nil }
        guard let string = value as? String else { throw ControlError(.badRequest, "args.\(key) must be a string") }
        return string
    }

    /// A required string argument.
    public func requiredString(_ key: String) throws -> String {
        guard let value = try string(key) else { throw ControlError(.badRequest, "args.\(key) is required") }
        return value
    }

    /// An optional integer argument (a JSON number without fraction; `true` is not a number).
    public func int(_ key: String) throws -> Int? {
        guard let value = args[key], !(value is NSNull) else { return nil }
        guard !Self.isJSONBool(value), let number = value as? Int else {
            throw ControlError(.badRequest, "args.\(key) must be an integer")
        }
        return number
    }

    /// An optional boolean argument.
    public func bool(_ key: String) throws -> Bool? {
        guard let value = args[key], !(value is NSNull) else { return nil }
        guard Self.isJSONBool(value), let flag = value as? Bool else { throw ControlError(.badRequest, "args.\(key) must be true or false") }
        return flag
    }

    /// JSONSerialization gives `true`/`false` as a boolean subclass of NSNumber and numbers as NSNumber itself;
    /// on Linux `1 is Bool` holds too, so the dynamic type is what tells them apart.
    static func isJSONBool(_ value: Any) -> Bool {
        value is Bool && type(of: value) != NSNumber.self
    }

    /// Rejects arguments the command does not know (catches typos such as "titel").
    public func allowOnly(_ keys: Set<String>) throws {
        if let unknown = args.keys.sorted().first(where: { !keys.contains($0) }) {
            throw ControlError(.badRequest, "unknown argument \"\(unknown)\" for \(command)")
        }
    }
}

/// Encodes responses: `{"id": …, "ok": true, "result": {…}}` or `{"id": …, "ok": false, "error": {"code", "message"}}`.
public enum Response {
    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamps.iso(date))
        }
        return encoder
    }()

    /// One event line for the event stream.
    public static func eventLine(name: String, data: some Encodable) -> Data {
        var object: [String: Any] = ["event": name, "time": Timestamps.iso(Date())]
        if let encoded = try? encoder.encode(data), let decoded = try? JSONSerialization.jsonObject(with: encoded, options: [.fragmentsAllowed]) {
            object["data"] = decoded
        }
        return line(object)
    }

    public static func success(id: Any?, result: some Encodable) -> Data {
        do {
            let encoded = try encoder.encode(result)
            let object = try JSONSerialization.jsonObject(with: encoded, options: [.fragmentsAllowed])
            return line(["id": id ?? NSNull(), "ok": true, "result": object])
        } catch {
            return failure(id: id, error: ControlError(.internalError, "cannot encode the result: \(error)"))
        }
    }

    public static func failure(id: Any?, error: ControlError) -> Data {
        line(["id": id ?? NSNull(), "ok": false, "error": ["code": error.code.rawValue, "message": error.message]])
    }

    static func line(_ object: [String: Any]) -> Data {
        var data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data(#"{"ok":false,"error":{"code":"internal","message":"encoding failed"}}"#.utf8)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}
