import ApplianceProtocol
import Foundation

/// Which object classes are present in each profile's picture, from the object events: a class (person, vehicle,
/// pet) is present while any of its labels is (a car and a truck are one vehicle topic), and a notification is made
/// only when that changes. Each channel's objects are its own profile's (`ONVIFNotification.channel`).
package struct ONVIFObjectPresence: Sendable {
    private struct Seen: Hashable {
        var channel: String
        var label: String
    }
    private var present: Set<Seen> = []
    private let otherChannels: [String]

    /// `otherChannels`: the channels after the first, a profile each.
    package init(otherChannels: [String] = []) { self.otherChannels = otherChannels }

    /// The notification an object event makes, if its class changed in its channel's picture.
    package mutating func fold(_ event: ApplianceEvent, at time: Date) -> ONVIFNotification? {
        let (object, starts): (ObjectEvent, Bool)
        switch event {
        case .objectStarted(let o): (object, starts) = (o, true)
        case .objectEnded(let o): (object, starts) = (o, false)
        default: return nil
        }
        guard let property = ONVIFNotification.Property.objectClass(object.label) else { return nil }
        let channel = ONVIFNotification.profileChannel(object.channel, otherChannels: otherChannels)
        let before = isPresent(property, in: channel)
        let seen = Seen(channel: channel, label: object.label)
        if starts { present.insert(seen) } else { present.remove(seen) }
        let after = isPresent(property, in: channel)
        return before == after
            ? nil
            : ONVIFNotification(property: property, value: after, time: time, operation: .changed, channel: channel)
    }

    private func isPresent(_ property: ONVIFNotification.Property, in channel: String) -> Bool {
        present.contains { $0.channel == channel && ONVIFNotification.Property.objectClass($0.label) == property }
    }
}
