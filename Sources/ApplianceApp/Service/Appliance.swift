import ApplianceBase
import ApplianceProtocol
import Engine
import Foundation
import GStreamerKit
import Logging
import MediaLibrary
import ServiceLifecycle
import Settings
import Supervision

/// The whole appliance, composed: `start` builds it in a defined order and `run` runs its services in one
/// ServiceGroup until graceful shutdown. Every front end — the control socket here, the web page, shutters and
/// timers next — drives it through `perform` and follows `events`. A test can build and drive one in-process.
public final class Appliance: Sendable {
    public struct StartupError: Error, CustomStringConvertible {
        /// One line, as `appliance run` prints it.
        public var description: String
    }

    public let config: ApplianceConfig
    public let data: DataDirectory
    public let events: EventHub
    public let readiness: Readiness
    /// The control socket's path.
    public let socketPath: String
    let graph: CaptureGraph
    /// The channels recorded beside the first; their graphs stop with the first's.
    let channels: [ChannelRig]
    let dispatcher: CommandDispatcher
    private let group: ServiceGroup
    /// The services in the order they start (shutdown stops them from the last), each as its type's name.
    let serviceOrder: [String]
    private let folderLock: DataFolderLock
    private let library: Library
    private let webrtc: WebRTCViewers
    private let deadline: ShutdownDeadline
    private let logger: Logger

    /// Sends a command, as every front end does; a refusal or failure is an `ApplianceError` with a stable code.
    public func perform(_ command: Command) async throws(ApplianceError) -> CommandResult {
        try await dispatcher.perform(command)
    }

    /// Runs every service until graceful shutdown (SIGTERM/SIGINT when `handleSignals`, or `shutdown()`), in the
    /// order the group stops them: commands refused, socket closed, recording finalised, uploads stopped at a safe
    /// point, camera and device watchers ended; then the graph stops and the data folder is released.
    public func run() async throws {
        defer {
            deadline.finished()
            folderLock.release()
        }
        do {
            try await group.run()
        } catch {
            await stopGraph()
            throw error
        }
        await stopGraph()
        do {
            try await library.endRun()  // a clean stop: the next start does not count this run as a crash
        } catch {
            logger.warning("could not mark this run as stopped cleanly: \(error)")
        }
        logger.info("stopped")
    }

    /// Begins graceful shutdown (what SIGTERM does).
    public func shutdown() async {
        await group.triggerGracefulShutdown()
    }

    /// How long stopping the graph may take before the daemon exits without it.
    static let graphStopLimit = Duration.seconds(5)

    /// Stops the graph, waiting at most `graphStopLimit`. By now every recording is finalised; a device call that
    /// never returns (a wedged V4L2 driver, an open() that blocks) holds the graph's state lock, and must not keep
    /// a stopping daemon alive until systemd's stop timeout kills it.
    private func stopGraph() async {
        events.finishAll()
        graph.live.finishAll()
        let (graph, webrtc, channels) = (self.graph, self.webrtc, self.channels)
        do {
            try await deadline.during("the capture graph's stop") {
                try await DeviceCall.run("the capture graph's stop", deadline: Self.graphStopLimit) {
                    webrtc.endAll()
                    graph.stop()
                    for channel in channels { channel.stop() }
                }
            }
        } catch {
            let stuck = DeviceCall.stuckNow.filter { !$0.hasPrefix("the capture graph's stop") }
            logger.error(
                """
                the capture graph did not stop within \(Self.graphStopLimit) (a device call is \
                stuck\(stuck.isEmpty ? "" : ": " + stuck.joined(separator: ", "))); exiting without it
                """
            )
        }
    }

    init(
        config: ApplianceConfig, data: DataDirectory, events: EventHub, readiness: Readiness, socketPath: String,
        graph: CaptureGraph, channels: [ChannelRig], dispatcher: CommandDispatcher, group: ServiceGroup,
        serviceOrder: [String],
        folderLock: DataFolderLock,
        library: Library, webrtc: WebRTCViewers, deadline: ShutdownDeadline, logger: Logger
    ) {
        (self.config, self.data, self.events, self.readiness) = (config, data, events, readiness)
        (self.socketPath, self.graph, self.dispatcher, self.group) = (socketPath, graph, dispatcher, group)
        (self.serviceOrder, self.channels) = (serviceOrder, channels)
        (self.folderLock, self.library, self.webrtc, self.logger) = (folderLock, library, webrtc, logger)
        self.deadline = deadline
    }
}
