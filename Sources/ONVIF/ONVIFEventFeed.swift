import ApplianceBase
import ApplianceProtocol
import AsyncAlgorithms
import Foundation
import ServiceLifecycle

/// Follows the appliance's events for the ONVIF subscriptions: motion, sound, object and recording changes become
/// notifications; on a clock, ended subscriptions and old nonces are swept. At shutdown every waiting pull returns.
package struct ONVIFEventFeed: Service {
    static let sweepInterval = Duration.seconds(10)
    package let device: ONVIFDevice
    package let events: EventHub

    package init(device: ONVIFDevice, events: EventHub) {
        self.device = device
        self.events = events
    }

    package func run() async throws {
        let subscription = events.subscribe()
        defer { events.unsubscribe(subscription.id) }
        let others = device.channels.compactMap { $0.channels.first?.name }
        device.subscriptions.setInitial(
            Self.initialStates(await device.currentStatus(), otherChannels: others, now: Date()))
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    var objects = ONVIFObjectPresence(otherChannels: others)
                    for await record in subscription.events.cancelOnGracefulShutdown() {
                        if let notification = ONVIFNotification(record.event, at: record.time, otherChannels: others)
                            ?? objects.fold(record.event, at: record.time)
                        {
                            device.subscriptions.publish(notification)
                        }
                    }
                }
                group.addTask {
                    for await _ in AsyncTimerSequence(interval: Self.sweepInterval, clock: .continuous)
                        .cancelOnGracefulShutdown()
                    {
                        device.subscriptions.expire()
                        device.verifier?.purge()
                    }
                }
            }
        } onGracefulShutdown: {
            device.subscriptions.finishAll()
        }
    }

    /// What a client's sensors start from: the first profile's motion, sound, recording and the object classes it
    /// tracks (a class never tracked is no entity), then each other channel's motion (when it runs motion),
    /// recording and object classes, from its status.
    static func initialStates(_ report: StatusReport?, otherChannels: [String], now: Date) -> [ONVIFNotification] {
        func classes(_ objects: ObjectStatus?) -> [ONVIFNotification.Property] {
            ONVIFNotification.Property.objectClasses.filter { property in
                objects?.track.contains { ONVIFNotification.Property.objectClass($0) == property } == true
            }
        }
        func state(_ property: ONVIFNotification.Property, _ value: Bool, _ channel: String = "") -> ONVIFNotification {
            ONVIFNotification(property: property, value: value, time: now, operation: .initialized, channel: channel)
        }
        var states = [
            state(.motion, report?.motion?.active ?? false), state(.sound, false),
            state(.recording, report?.recording != nil),
        ]
        states += classes(report?.objects).map { state($0, false) }
        for name in otherChannels {
            let channel = report?.channels.first { $0.name == name }
            if let motion = channel?.motion { states.append(state(.motion, motion.active, name)) }
            states.append(state(.recording, channel?.state == .recording, name))
            states += classes(channel?.objects).map { state($0, false, name) }
        }
        return states
    }
}
