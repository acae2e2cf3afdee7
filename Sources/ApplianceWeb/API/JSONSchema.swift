import ApplianceProtocol

/// JSON Schema fragments (the 2020-12 dialect that OpenAPI 3.1 uses) as `JSONValue`s: the vocabulary the API's
/// document is written in. Bounds given here are the parsers' own: `schemathesis` sends values just outside them and
/// expects a 4xx, and values inside them and expects no 5xx.
enum JSONSchema {
    static func string(
        _ description: String? = nil, minLength: Int? = nil, maxLength: Int? = nil, format: String? = nil,
        pattern: String? = nil, values: [String]? = nil
    ) -> JSONValue {
        .object(compacting: [
            ("type", .string("string")), ("description", description.map(JSONValue.string)),
            ("minLength", minLength.map(JSONValue.int)), ("maxLength", maxLength.map(JSONValue.int)),
            ("format", format.map(JSONValue.string)), ("pattern", pattern.map(JSONValue.string)),
            ("enum", values.map { .array($0.map(JSONValue.string)) }),
        ])
    }

    static func integer(_ description: String? = nil, min: Int? = nil, max: Int? = nil) -> JSONValue {
        .object(compacting: [
            ("type", .string("integer")), ("description", description.map(JSONValue.string)),
            ("minimum", min.map(JSONValue.int)), ("maximum", max.map(JSONValue.int)),
        ])
    }

    static func number(_ description: String? = nil, min: Double? = nil, max: Double? = nil) -> JSONValue {
        .object(compacting: [
            ("type", .string("number")), ("description", description.map(JSONValue.string)),
            ("minimum", min.map(JSONValue.double)), ("maximum", max.map(JSONValue.double)),
        ])
    }

    static func boolean(_ description: String? = nil) -> JSONValue {
        .object(compacting: [("type", .string("boolean")), ("description", description.map(JSONValue.string))])
    }

    static func array(_ items: JSONValue) -> JSONValue { .object(["type": .string("array"), "items": items]) }

    /// An object; `closed`: no properties but these (the command parsers refuse an unknown argument).
    static func object(_ properties: [String: JSONValue] = [:], required: [String] = [], closed: Bool = false)
        -> JSONValue
    {
        .object(compacting: [
            ("type", .string("object")), ("properties", properties.isEmpty ? nil : .object(properties)),
            ("required", required.isEmpty ? nil : .array(required.map(JSONValue.string))),
            ("additionalProperties", closed ? .bool(false) : nil),
        ])
    }

    /// A map of names to values of one schema.
    static func map(_ values: JSONValue) -> JSONValue {
        .object(["type": .string("object"), "additionalProperties": values])
    }

    static func ref(_ name: String) -> JSONValue { .object(["$ref": .string("#/components/schemas/\(name)")]) }

    static func nullable(_ schema: JSONValue) -> JSONValue {
        .object(["anyOf": .array([schema, .object(["type": .string("null")])])])
    }

    /// A moment: ISO 8601 with a zone, as every time on the wire is written.
    static let moment = string("ISO 8601 with a zone, e.g. 2026-11-26T14:03:00Z", format: "date-time")
    /// A query parameter that may also be sent empty, which means not given (as the pages' forms send a blank field).
    static func orEmpty(_ schema: JSONValue) -> JSONValue {
        .object(["anyOf": .array([schema, string(maxLength: 0)])])
    }

    /// A local day, `2026-11-26`.
    static let day = string(
        "a day in the device's time zone, e.g. 2026-11-26", pattern: #"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"#)
    /// Bytes that are not JSON (video, pictures, text tracks).
    static let bytes = string(format: "binary")
}

extension JSONValue {
    /// An object of the pairs whose value is present.
    static func object(compacting pairs: [(String, JSONValue?)]) -> JSONValue { .object(Dictionary(compacting: pairs)) }
}
