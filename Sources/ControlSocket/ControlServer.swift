import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Serves the control protocol on a Unix socket (mode 0660): newline-delimited JSON, one response per request,
/// many clients at once. A bad request gets an error response; it never affects other clients or the daemon.
public final class ControlServer: Service, Sendable, CustomStringConvertible {
    public var description: String { "ControlServer(\(path))" }
    public static let maxLineBytes = 64 * 1024
    package let path: String
    package let router: SocketRouter
    package let events: EventHub
    package let logger: Logger
    /// Called once the socket is bound (readiness).
    package let onBound: @Sendable () -> Void
    /// Open client connections, closed on shutdown (an `events` client would otherwise stay forever).
    private let clients = Locked<[ObjectIdentifier: any Channel]>([:])

    package init(
        path: String, router: SocketRouter, events: EventHub, logger: Logger, onBound: @escaping @Sendable () -> Void
    ) {
        self.path = path
        self.router = router
        self.events = events
        self.logger = logger
        self.onBound = onBound
    }

    /// Binds the socket; throws a one-line reason (e.g. another daemon is serving it).
    public func bind() async throws -> NIOAsyncChannel<NIOAsyncChannel<LineFrame, ByteBuffer>, Never> {
        try Self.refuseIfServed(path)
        let folder = (path as NSString).deletingLastPathComponent
        if !folder.isEmpty {
            try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.backlog, value: 128)
            .bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(LineFrameDecoder(maxLength: Self.maxLineBytes)))
                    return try NIOAsyncChannel<LineFrame, ByteBuffer>(wrappingChannelSynchronously: channel)
                }
            }
        chmod(path, 0o660)
        return channel
    }

    public func run() async throws {
        let server = try await bind()
        logger.info("control socket listening", metadata: ["path": "\(path)"])
        onBound()
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
                while let frame = try await lines.next() {
                    let outcome: SocketRouter.Outcome
                    switch frame {
                    case .tooLong:
                        outcome = .response(
                            ResponseLine.failure(
                                id: .null,
                                error: ApplianceError(
                                    .badRequest, "request line longer than \(Self.maxLineBytes) bytes")))
                    case .line(let buffer):
                        if buffer.readableBytes == 0 { continue }
                        outcome = await router.respond(to: Data(buffer.readableBytesView))
                    }
                    switch outcome {
                    case .response(let response):
                        try await outbound.write(ByteBuffer(bytes: response))
                    case .subscribe(let acknowledgement):
                        try await outbound.write(ByteBuffer(bytes: acknowledgement))
                        try await streamEvents(to: outbound, while: &lines)
                        return
                    }
                }
            }
        } catch {
            logger.debug("control client went away: \(error)")
        }
    }

    /// From now on the connection carries events, until the client leaves (or shutdown closes the connection).
    /// Reading goes on only to notice that; requests on an event connection are ignored.
    private func streamEvents(
        to outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>,
        while lines: inout NIOAsyncChannelInboundStream<LineFrame>.AsyncIterator
    ) async throws {
        let subscription = events.subscribe()
        defer { events.unsubscribe(subscription.id) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await record in subscription.events {
                    try await outbound.write(ByteBuffer(bytes: try WireFormat.line(record)))
                }
            }
            while try await lines.next() != nil {}
            group.cancelAll()
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
