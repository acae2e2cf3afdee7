import ApplianceBase
import ApplianceProtocol
import AsyncAlgorithms
import Foundation
import Logging
import MQTTKit
import ServiceLifecycle

/// `[mqtt]`: the appliance on an MQTT broker and in Home Assistant. It follows the event stream and asks the one
/// entry point (as the recording light does), publishes retained states when they change, announces the device
/// (discovery) after every connect and whenever Home Assistant comes back, and sends command messages through the
/// same typed commands as every front end. The broker being down, slow or refusing only shows in `status.mqtt` and
/// in `mqtt_connected` / `mqtt_disconnected` events: nothing here waits on the network (libmosquitto runs on its
/// own thread) and recording never waits on it.
package final class MQTTBridge: Service, Sendable, CustomStringConvertible {
    package var description: String { "MQTTBridge" }

    /// How often the elapsed time is published while recording.
    package static let tick = Duration.seconds(10)
    /// How often status is asked again without an event (free space drifts as clips are written).
    package static let refresh = Duration.seconds(60)

    private let link: MQTTLink
    private let settings: MQTTSettings
    private let events: EventHub
    private let perform: @Sendable (Command) async throws(ApplianceError) -> CommandResult
    private let logger: Logger

    package init(
        settings: MQTTSettings, link: MQTTLink, events: EventHub, logger: Logger,
        perform: @escaping @Sendable (Command) async throws(ApplianceError) -> CommandResult
    ) {
        (self.settings, self.link, self.events, self.logger, self.perform) = (settings, link, events, logger, perform)
    }

    package func run() async throws {
        let connection: MQTTConnection
        do {
            connection = try MQTTConnection(settings.connectionOptions)
        } catch {
            // Settings the library refuses (a ca_file it cannot load): reported, and the daemon goes on without MQTT.
            link.update(state: .disconnected, error: error.description)
            logger.error("\(error)")
            try? await gracefulShutdown()
            return
        }
        let publisher = MQTTPublisher(settings: settings, connection: connection, perform: perform, logger: logger)
        let subscription = events.subscribe()
        defer { events.unsubscribe(subscription.id) }
        logger.info(
            "MQTT connecting", metadata: ["broker": "\(settings.url)", "topic_prefix": "\(settings.topics.prefix)"])
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask { await Self.runNetworkThread(connection) }
                group.addTask {
                    for await event in connection.events { await self.handle(event, publisher: publisher) }
                }
                group.addTask {
                    for await record in subscription.events.cancelOnGracefulShutdown() {
                        await publisher.fold(record.event)
                    }
                }
                group.addTask {
                    let ticksPerRefresh = Int(Self.refresh / Self.tick)
                    var ticks = 0
                    for await _ in AsyncTimerSequence(interval: Self.tick, clock: .continuous)
                        .cancelOnGracefulShutdown()
                    {
                        ticks += 1
                        await publisher.tick(refresh: ticks % ticksPerRefresh == 0)
                    }
                }
            }
        } onGracefulShutdown: {
            connection.stop(farewell: [
                MQTTMessage(topic: self.settings.topics.availability, text: "offline", qos: 1, retain: true)
            ])
        }
        link.update(state: .disconnected, error: "stopped")
    }

    /// libmosquitto's network loop on a thread of its own for the daemon's life (not one of the blocking pool's
    /// four); returns once `stop` has sent the farewell and disconnected.
    private static func runNetworkThread(_ connection: MQTTConnection) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                connection.run()
                done.resume()
            }
            thread.name = "mqtt"
            thread.start()
        }
    }

    private func handle(_ event: MQTTConnection.Event, publisher: MQTTPublisher) async {
        switch event {
        case .connected:
            let status = link.update(state: .connected, error: nil, connected: true)
            logger.notice("MQTT connected", metadata: ["broker": "\(settings.url)", "connects": "\(status.connects)"])
            events.publish(.mqttConnected(status))
            await publisher.connected()
        case .disconnected(let reason):
            let before = link.status
            let status = link.update(state: .disconnected, error: reason)
            if before.state == .connected || before.error != reason {
                logger.warning("MQTT \(settings.url): \(reason); trying again with backoff")
            }
            events.publish(.mqttDisconnected(status))
        case .message(let message):
            await publisher.received(message)
        }
    }
}

/// What `status.mqtt` shows, kept up to date by the bridge.
package final class MQTTLink: Sendable {
    private let state: Locked<MQTTStatus>

    package init(_ initial: MQTTStatus) { state = Locked(initial) }

    package var status: MQTTStatus { state.withLock { $0 } }

    @discardableResult
    package func update(state newState: MQTTStatus.State, error: String?, connected: Bool = false) -> MQTTStatus {
        state.withLock { s in
            s.state = newState
            s.error = error
            if connected { s.connects += 1 }
            return s
        }
    }
}
