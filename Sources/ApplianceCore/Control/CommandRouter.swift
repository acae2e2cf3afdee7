import Foundation

/// Maps request lines to controller calls and always produces exactly one response line.
public struct CommandRouter: Sendable {
    public let controller: Controller

    public init(controller: Controller) { self.controller = controller }

    /// The commands this daemon understands (also listed in docs/PROTOCOL.md).
    public static let commands = ["status", "record.start", "record.stop", "snapshot", "ping"]

    public func respond(to line: Data) async -> Data {
        let request: Request
        do {
            request = try Request.parse(line)
        } catch let error as ControlError {
            return Response.failure(id: nil, error: error)
        } catch {
            return Response.failure(id: nil, error: ControlError(.badRequest, "\(error)"))
        }
        do {
            return try await dispatch(request)
        } catch let error as ControlError {
            return Response.failure(id: request.id, error: error)
        } catch {
            return Response.failure(id: request.id, error: ControlError(.internalError, "\(error)"))
        }
    }

    private func dispatch(_ request: Request) async throws -> Data {
        let id = request.id
        switch request.command {
        case "ping":
            try request.allowOnly([])
            return Response.success(id: id, result: ["pong": true])
        case "status":
            try request.allowOnly([])
            return Response.success(id: id, result: await controller.status())
        case "record.start":
            try request.allowOnly(["title"])
            return Response.success(id: id, result: try await controller.startRecording(title: try request.string("title")))
        case "record.stop":
            try request.allowOnly(["title"])
            return Response.success(id: id, result: try await controller.stopRecording(title: try request.string("title")))
        case "snapshot":
            try request.allowOnly([])
            return Response.success(id: id, result: try await controller.snapshot())
        default:
            throw ControlError(.unknownCommand, "unknown command \"\(request.command)\" (known: \(Self.commands.joined(separator: ", ")))")
        }
    }
}
