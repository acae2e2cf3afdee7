import Foundation

/// Maps request lines to controller calls and always produces exactly one response line
/// (`events` answers once, then the connection carries the event stream).
public struct CommandRouter: Sendable {
    public let controller: Controller

    public init(controller: Controller) { self.controller = controller }

    public enum Outcome: Sendable {
        case response(Data)
        /// Send this acknowledgement, then stream events on the connection.
        case subscribe(Data)
    }

    /// The commands this daemon understands (also listed in docs/PROTOCOL.md).
    public static let commands = [
        "ping", "status", "record.start", "record.stop", "snapshot",
        "list", "info", "rename", "delete", "lock", "unlock", "events", "cameras", "switch", "backup.status", "backup.retry",
    ]

    public func respond(to line: Data) async -> Outcome {
        let request: Request
        do {
            request = try Request.parse(line)
        } catch let error as ControlError {
            return .response(Response.failure(id: nil, error: error))
        } catch {
            return .response(Response.failure(id: nil, error: ControlError(.badRequest, "\(error)")))
        }
        do {
            if request.command == "events" {
                try request.allowOnly([])
                return .subscribe(Response.success(id: request.id, result: ["subscribed": true]))
            }
            return .response(try await dispatch(request))
        } catch let error as ControlError {
            return .response(Response.failure(id: request.id, error: error))
        } catch {
            return .response(Response.failure(id: request.id, error: ControlError(.internalError, "\(error)")))
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
        case "list":
            try request.allowOnly(["page", "per_page"])
            let page = try request.int("page") ?? 1
            let perPage = try request.int("per_page") ?? 10
            return Response.success(id: id, result: try await controller.list(page: page, perPage: perPage))
        case "info":
            try request.allowOnly(["id"])
            return Response.success(id: id, result: try await controller.info(id: try request.requiredString("id")))
        case "rename":
            try request.allowOnly(["id", "title"])
            return Response.success(id: id, result: try await controller.rename(id: try request.requiredString("id"), title: try request.requiredString("title")))
        case "delete":
            try request.allowOnly(["id", "force"])
            return Response.success(id: id, result: try await controller.delete(id: try request.requiredString("id"), force: try request.bool("force") ?? false))
        case "lock", "unlock":
            try request.allowOnly(["id"])
            return Response.success(id: id, result: try await controller.setLocked(id: try request.requiredString("id"), locked: request.command == "lock"))
        case "backup.status":
            try request.allowOnly([])
            return Response.success(id: id, result: try await controller.backupStatus())
        case "backup.retry":
            try request.allowOnly(["id"])
            return Response.success(id: id, result: try await controller.backupRetry(id: try request.string("id")))
        case "cameras":
            try request.allowOnly([])
            return Response.success(id: id, result: await controller.cameras())
        case "switch":
            try request.allowOnly(["camera", "next"])
            let camera = try request.string("camera"), next = try request.bool("next") ?? false
            guard (camera != nil) != next else {
                throw ControlError(.badRequest, "switch needs either args.camera (a name) or args.next = true")
            }
            return Response.success(id: id, result: try await controller.switchCamera(camera))
        default:
            throw ControlError(.unknownCommand, "unknown command \"\(request.command)\" (known: \(Self.commands.joined(separator: ", ")))")
        }
    }
}
