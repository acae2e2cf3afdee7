import ApplianceBase
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
        let report = await device.currentStatus()
        let now = Date()
        // The object classes the tracked labels fall in, when objects are on (a class never tracked is no entity).
        let classes = ONVIFNotification.Property.objectClasses.filter { property in
            report?.objects?.track.contains { ONVIFNotification.Property.objectClass($0) == property } == true
        }
        device.subscriptions.setInitial(
            [
                ONVIFNotification(
                    property: .motion, value: report?.motion?.active ?? false, time: now, operation: .initialized),
                ONVIFNotification(property: .sound, value: false, time: now, operation: .initialized),
                ONVIFNotification(
                    property: .recording, value: report?.recording != nil, time: now, operation: .initialized),
            ] + classes.map { ONVIFNotification(property: $0, value: false, time: now, operation: .initialized) })
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                group.addTask {
                    var objects = ONVIFObjectPresence()
                    for await record in subscription.events.cancelOnGracefulShutdown() {
                        if let notification = ONVIFNotification(record.event, at: record.time)
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
}
