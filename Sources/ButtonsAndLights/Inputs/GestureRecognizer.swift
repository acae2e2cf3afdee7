import ApplianceProtocol

/// Turns a button's presses and releases into gestures (press, long press, double press, hold start/end).
///
/// A pure value: it has no clock of its own. Time moves only with the edges' own timestamps (the device's clock)
/// and with `advance(to:)`, which the reader calls when `nextDeadline` has passed. So a test can feed synthetic
/// times and judge every rule without sleeping, and a daemon that reads events late still judges them by when
/// they happened.
///
/// The rules:
/// - `hold`: down is `holdStart`, up is `holdEnd` (no long or double press: the config refuses them).
/// - Neither long nor double press configured: `press` fires on the DOWN — the shortest path from a key to the
///   first frame of a recording.
/// - Long press configured: held for at least `longPress` fires `longPress` at that deadline, while still held
///   (or, when the release's own timestamp is already past it, as that release is processed). A shorter hold is a
///   press at the release — or, with double press configured, a candidate first press.
/// - Double press configured: a second DOWN at most `doublePress` after the first release is a `doublePress`,
///   fired on that down; otherwise the single press fires once the window has expired.
/// - A release without a press, a second press without a release, and timestamps that go backwards are tolerated
///   (ignored, or taken as "now").
package struct GestureRecognizer: Sendable, Equatable {
    package typealias Gesture = InputGesture.Gesture

    /// What the button is configured to recognise; durations in nanoseconds of the device's clock.
    package struct Rules: Sendable, Equatable {
        package var hold = false
        package var longPress: UInt64?
        package var doublePress: UInt64?

        package init(hold: Bool = false, longPress: UInt64? = nil, doublePress: UInt64? = nil) {
            (self.hold, self.longPress, self.doublePress) = (hold, longPress, doublePress)
        }
    }

    private enum State: Sendable, Equatable {
        case idle
        /// Down since this time, its gesture not decided yet (long or double press configured).
        case held(since: UInt64)
        /// Down, and this down's gesture has already fired (press on down, long press, double press, hold start):
        /// its release only ends it.
        case spent
        /// A short press was released at this time; a second down within the window makes it a double press.
        case awaitingSecond(releasedAt: UInt64)
    }

    package let rules: Rules
    private var state = State.idle
    /// The latest time seen, from an edge or `advance(to:)`.
    package private(set) var now: UInt64 = 0

    package init(rules: Rules) { self.rules = rules }

    /// Whether the button is down as far as the recognizer knows.
    package var isDown: Bool {
        switch state {
        case .held, .spent: true
        case .idle, .awaitingSecond: false
        }
    }

    /// When a gesture may fire without another edge: the long-press threshold of a held button, or the end of
    /// the double-press window. nil when nothing is pending.
    package var nextDeadline: UInt64? {
        switch state {
        case .held(let since): rules.longPress.map { since + $0 }
        case .awaitingSecond(let releasedAt): rules.doublePress.map { releasedAt + $0 }
        case .idle, .spent: nil
        }
    }

    /// Fires what is due at `time` (deadlines at or before it). Earlier times than already seen change nothing.
    package mutating func advance(to time: UInt64) -> [Gesture] {
        now = max(now, time)
        guard let deadline = nextDeadline, deadline <= now else { return [] }
        switch state {
        case .held:
            state = .spent
            return [.longPress]
        case .awaitingSecond:
            state = .idle
            return [.press]
        case .idle, .spent:
            return []
        }
    }

    /// Processes one edge; deadlines strictly before its time expire first (a down exactly at the end of the
    /// double-press window still counts as the second press).
    package mutating func feed(_ edge: ButtonEdge) -> [Gesture] {
        let time = max(now, edge.time)
        var fired: [Gesture] = []
        if let deadline = nextDeadline, deadline < time { fired = advance(to: deadline) }
        now = time
        if rules.hold { return fired + hold(edge.pressed) }
        if edge.pressed { return fired + down(at: time) }
        return fired + up(at: time)
    }

    /// The device went away: a hold ends (the recording must not run on with nobody able to release it), a press
    /// waiting for its double-press window fires now; an undecided half press is dropped.
    package mutating func disconnect() -> [Gesture] {
        defer { state = .idle }
        switch state {
        case .spent where rules.hold: return [.holdEnd]
        case .awaitingSecond: return [.press]
        case .idle, .held, .spent: return []
        }
    }

    private mutating func hold(_ pressed: Bool) -> [Gesture] {
        switch (state, pressed) {
        case (.idle, true):
            state = .spent
            return [.holdStart]
        case (.spent, false):
            state = .idle
            return [.holdEnd]
        default:
            return []  // a repeated state: already held, or a release without a press
        }
    }

    private mutating func down(at time: UInt64) -> [Gesture] {
        switch state {
        case .idle:
            if rules.longPress == nil, rules.doublePress == nil {
                state = .spent
                return [.press]
            }
            state = .held(since: time)
            return []
        case .awaitingSecond:
            // Still waiting, so this down is within the window (an expired window was fired in `feed`).
            state = .spent
            return [.doublePress]
        case .held, .spent:
            return []  // already down
        }
    }

    private mutating func up(at time: UInt64) -> [Gesture] {
        switch state {
        case .held(let since):
            if let long = rules.longPress, time - since >= long {
                state = .idle
                return [.longPress]
            }
            if rules.doublePress != nil {
                state = .awaitingSecond(releasedAt: time)
                return []
            }
            state = .idle
            return [.press]
        case .spent:
            state = .idle
            return []
        case .idle, .awaitingSecond:
            return []  // a release without a press
        }
    }
}
