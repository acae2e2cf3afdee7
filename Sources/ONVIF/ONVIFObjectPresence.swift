import ApplianceProtocol
import Foundation

/// Which object classes are present, from the object events: a class (person, vehicle, pet) is present while any of
/// its labels is (a car and a truck are one vehicle topic), and a notification is made only when that changes.
package struct ONVIFObjectPresence: Sendable {
    private var present: Set<String> = []

    package init() {}

    /// The notification an object event makes, if its class changed.
    package mutating func fold(_ event: ApplianceEvent, at time: Date) -> ONVIFNotification? {
        let (label, starts): (String, Bool)
        switch event {
        // The first profile's picture, as motion's (`ONVIFNotification`).
        case .objectStarted(let o) where o.channel == nil: (label, starts) = (o.label, true)
        case .objectEnded(let o) where o.channel == nil: (label, starts) = (o.label, false)
        default: return nil
        }
        guard let property = ONVIFNotification.Property.objectClass(label) else { return nil }
        let before = isPresent(property)
        if starts { present.insert(label) } else { present.remove(label) }
        let after = isPresent(property)
        return before == after
            ? nil : ONVIFNotification(property: property, value: after, time: time, operation: .changed)
    }

    private func isPresent(_ property: ONVIFNotification.Property) -> Bool {
        present.contains { ONVIFNotification.Property.objectClass($0) == property }
    }
}
