/// An error answered on the control socket, with a stable machine-readable code.
public struct ControlError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Code: String, Sendable, Codable {
        case badRequest = "bad_request"
        case unknownCommand = "unknown_command"
        case notFound = "not_found"
        case busy
        case conflict
        case unavailable
        case internalError = "internal"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
