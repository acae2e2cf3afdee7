import Foundation

/// An event with the time it happened; on the wire one line:
/// `{"event": "recording_stopped", "time": "2026-11-21T14:03:15.456Z", "data": {…}}`.
public struct EventRecord: Sendable, Equatable, Codable {
    public var event: ApplianceEvent
    public var time: Date

    public init(_ event: ApplianceEvent, time: Date = Date()) { (self.event, self.time) = (event, time) }

    enum Keys: String, CodingKey { case event, time, data }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(event.name, forKey: .event)
        try container.encode(time, forKey: .time)
        try container.encode(AnyEncodable(event.payload), forKey: .data)
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        time = try container.decode(Date.self, forKey: .time)
        let name = try container.decode(String.self, forKey: .event)
        guard let kind = ApplianceEvent.Kind(rawValue: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .event, in: container, debugDescription: "unknown event \"\(name)\"")
        }
        event = try ApplianceEvent(kind, data: try container.superDecoder(forKey: .data))
    }

    /// The event's data as a JSON value (for generic display, e.g. `ctl events`).
    public var data: JSONValue {
        (try? WireFormat.decoder.decode(JSONValue.self, from: WireFormat.encoder.encode(AnyEncodable(event.payload))))
            ?? .null
    }
}

/// Lets a value of any Encodable type be encoded where a concrete type is needed.
struct AnyEncodable: Encodable {
    let value: any Encodable
    init(_ value: any Encodable) { self.value = value }
    func encode(to encoder: Encoder) throws { try value.encode(to: encoder) }
}
