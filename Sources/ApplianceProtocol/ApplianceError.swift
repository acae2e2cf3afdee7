/// Why a command was refused or failed, with a stable machine-readable code (docs/PROTOCOL.md "Error codes").
/// Every front end shows the message as is: one line, saying what happened and, where it can, what to do.
public struct ApplianceError: Error, CustomStringConvertible, Sendable, Equatable, Codable {
    public enum Code: String, Sendable, Codable, CaseIterable {
        case badRequest = "bad_request"
        case unknownCommand = "unknown_command"
        case notFound = "not_found"
        case busy
        /// Too many of these in a while (snapshots): try again later.
        case rateLimited = "rate_limited"
        case conflict
        case unavailable
        case internalError = "internal"
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) { (self.code, self.message) = (code, message) }

    public var description: String { message }
}

extension ApplianceError {
    /// A command named a channel that is not configured: not_found, naming those that are.
    public static func noChannel(named channel: String, among names: [String]) -> ApplianceError {
        ApplianceError(
            .notFound, "no channel named \"\(channel.prefix(64))\" (channels: \(names.joined(separator: ", ")))")
    }
}
