import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging

/// One open device's edges on their way to gestures: the debouncer (when the device needs one in software) in front
/// of the recognizer. Deadlines are fired in time order, each at its own time, whichever of the two it belongs to.
/// Each edge as read and as settled, and each gesture, is logged at debug level: what a misread gesture is judged
/// from (it showed the lab's "lost" double press to be a release shorter than the debounce).
package struct GestureFeed {
    package var recognizer: GestureRecognizer
    private var debouncer: Debouncer?
    private let label: String
    private let logger: Logger

    package init(recognizer: GestureRecognizer, debounce: UInt64?, label: String, logger: Logger) {
        self.recognizer = recognizer
        debouncer = debounce.map { Debouncer(debounce: $0) }
        (self.label, self.logger) = (label, logger)
    }

    /// The earliest time at which a gesture or a settled edge is due without another edge.
    package var nextDeadline: UInt64? {
        [recognizer.nextDeadline, debouncer?.nextDeadline].compactMap { $0 }.min()
    }

    /// One raw edge from the device; deadlines due before it have been expired by the caller (`expire`).
    package mutating func feed(_ edge: ButtonEdge) -> [InputGesture.Gesture] {
        guard debouncer != nil else { return recognise(edge, "read") }
        logger.debug("input '\(label)': read \(edge.pressed ? "down" : "up") at \(Self.seconds(edge.time))")
        return debouncer!.feed(edge).flatMap { recognise($0, "settled") }
    }

    /// Fires every deadline due by device time `now`, each at its own time.
    package mutating func expire(until now: UInt64) -> [InputGesture.Gesture] {
        var fired: [InputGesture.Gesture] = []
        while let deadline = nextDeadline, deadline <= now {
            if debouncer != nil {
                fired += debouncer!.advance(to: deadline).flatMap { recognise($0, "settled") }
            }
            let gestures = recognizer.advance(to: deadline)
            if !gestures.isEmpty {
                logger.debug("input '\(label)': at \(Self.seconds(deadline)) → \(gestures.map(\.rawValue))")
            }
            fired += gestures
        }
        return fired
    }

    private mutating func recognise(_ edge: ButtonEdge, _ how: String) -> [InputGesture.Gesture] {
        let gestures = recognizer.feed(edge)
        logger.debug(
            """
            input '\(label)': \(how) \(edge.pressed ? "down" : "up") at \(Self.seconds(edge.time)) → \
            \(gestures.map(\.rawValue))
            """
        )
        return gestures
    }

    /// A device time in seconds with microseconds, for the log.
    private static func seconds(_ nanoseconds: UInt64) -> String {
        String(format: "%.6f s", Double(nanoseconds) / 1e9)
    }
}
