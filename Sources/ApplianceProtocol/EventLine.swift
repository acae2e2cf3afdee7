import Foundation

/// An event line read without knowing its kind: the name, the time and the data as sent. For clients that show
/// every event whatever it is (`ctl events`), so a newer daemon's events still print; typed readers use
/// `EventRecord`, which refuses a name it does not know.
public struct EventLine: Sendable, Equatable, Codable {
    public var event: String
    public var time: Date
    public var data: JSONValue

    public init(event: String, time: Date, data: JSONValue) { (self.event, self.time, self.data) = (event, time, data) }
}
