import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Serves the control protocol on a Unix socket (mode 0660): newline-delimited JSON, one response per request,
/// many clients at once. A bad request gets an error response; it never affects other clients or the daemon.
public final class ControlServer: Service, Sendable {
    public static let maxLineBytes = 64 * 1024
    let path: String
    let router: CommandRouter
    let events: EventHub
    let logger: Logger
    /// Open client connections, closed on shutdown (an `events` client would otherwise stay forever).
    private let clients = Locked<[ObjectIdentifier: any Channel]>([:])

    public init(path: String, router: CommandRouter, events: EventHub, logger: Logger) {
        self.path = path
        self.router = router
        self.events = events
        self.logger = logger
    }

    /// Binds the socket; throws a one-line reason (e.g. another daemon is serving it).
    public func bind() async throws -> NIOAsyncChannel<NIOAsyncChannel<LineFrame, ByteBuffer>, Never> {
        try Self.refuseIfServed(path)
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty { try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true) }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 128)
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(LineFrameDecoder(maxLength: Self.maxLineBytes)))
                    return try NIOAsyncChannel<LineFrame, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        chmod(path, 0o660)
        return channel
    }

    public func run() async throws {
        let server = try await bind()
        logger.info("control socket listening", metadata: ["path": "\(path)"])
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { group in
                try await server.executeThenClose { clients in
                    for try await client in clients {
                        group.addTask { await self.serve(client) }
                    }
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
            for channel in self.clients.withLock({ Array($0.values) }) { channel.close(promise: nil) }
        }
        try? FileManager.default.removeItem(atPath: path)
    }

    private func serve(_ client: NIOAsyncChannel<LineFrame, ByteBuffer>) async {
        let key = ObjectIdentifier(client.channel)
        clients.withLock { $0[key] = client.channel }
        defer { clients.withLock { _ = $0.removeValue(forKey: key) } }
        do {
            try await client.executeThenClose { inbound, outbound in
                var lines = inbound.makeAsyncIterator()
                var streaming: Task<Void, Error>?
                defer { streaming?.cancel() }
                while let frame = try await lines.next() {
                    guard streaming == nil else { continue }  // requests on an event connection are ignored
                    let outcome: CommandRouter.Outcome
                    switch frame {
                    case .tooLong:
                        outcome = .response(Response.failure(id: nil, error: ControlError(.badRequest, "request line longer than \(Self.maxLineBytes) bytes")))
                    case .line(let buffer):
                        if buffer.readableBytes == 0 { continue }
                        outcome = await router.respond(to: Data(buffer.readableBytesView))
                    }
                    switch outcome {
                    case .response(let response):
                        try await outbound.write(ByteBuffer(bytes: response))
                    case .subscribe(let acknowledgement):
                        try await outbound.write(ByteBuffer(bytes: acknowledgement))
                        // From now on the connection carries events; reading goes on only to notice the client leave.
                        let subscription = events.subscribe()
                        streaming = Task { [events] in
                            defer { events.unsubscribe(subscription.id) }
                            for await line in subscription.lines {
                                try await outbound.write(ByteBuffer(bytes: line))
                            }
                        }
                    }
                }
            }
        } catch {
            logger.debug("control client went away: \(error)")
        }
    }

    /// A socket file that answers means another daemon is running: refuse rather than steal it.
    static func refuseIfServed(_ path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        if let client = try? ControlClient(path: path, timeout: 1) {
            _ = client
            throw ControlClient.ClientError(description: "another appliance daemon is already serving \(path)")
        }
    }
}
