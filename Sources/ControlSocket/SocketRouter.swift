import ApplianceProtocol
import Foundation

/// The control socket's translation: a request line becomes a `Command` for the one entry point, and the typed
/// result or error becomes exactly one response line. `events` answers once, then the connection carries the
/// event stream. Nothing here knows what a command does.
package struct SocketRouter: Sendable {
    package let perform: @Sendable (Command) async throws(ApplianceError) -> CommandResult

    package init(perform: @escaping @Sendable (Command) async throws(ApplianceError) -> CommandResult) {
        self.perform = perform
    }

    package enum Outcome: Sendable {
        case response(Data)
        /// Send this acknowledgement, then stream events on the connection.
        case subscribe(Data)
    }

    package func respond(to line: Data) async -> Outcome {
        let request: RequestLine
        do {
            request = try RequestLine.parse(line)
        } catch {
            return .response(ResponseLine.failure(id: .null, error: error))
        }
        if request.command == "events" {
            guard request.arguments.isEmpty else {
                let unknown = request.arguments.keys.sorted()[0]
                return .response(
                    ResponseLine.failure(
                        id: request.id, error: ApplianceError(.badRequest, "unknown argument \"\(unknown)\" for events")
                    ))
            }
            return .subscribe(ResponseLine.success(id: request.id, result: ["subscribed": true]))
        }
        do {
            let command = try Command(name: request.command, arguments: request.arguments)
            return .response(ResponseLine.success(id: request.id, result: AnyResult(try await perform(command))))
        } catch {
            return .response(ResponseLine.failure(id: request.id, error: error))
        }
    }
}

/// A typed result, encoded as its payload.
struct AnyResult: Encodable {
    package let result: CommandResult
    package init(_ result: CommandResult) { self.result = result }
    package func encode(to encoder: Encoder) throws { try result.payload.encode(to: encoder) }
}
