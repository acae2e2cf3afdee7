/// When events start and stop a recording (`[recording] trigger`), as a pure value: event starts and ends and the
/// time go in, `start` or `stop` comes out. An event of a triggering kind starts a recording (with the pre-roll the
/// recorder already keeps); the recording ends `postRecordS` after the last event ended, or `eventGapS` if that is
/// longer, so that events closer than the gap share one clip. A recording started by hand is never stopped by it,
/// and a recording that ended otherwise (by hand, `max_duration_s`) is started again only by a new event.
package struct EventTrigger: Sendable, Equatable {
    package enum Action: Sendable, Equatable { case start, stop }

    /// The kinds of event that record ("motion", "sound", "object", a label such as "person"); empty: manual.
    package let kinds: Set<String>
    package let postRecordS: Double
    package let eventGapS: Double
    /// Events of the triggering kinds going on now.
    private(set) var going: Set<String> = []
    /// Whether the recording going on was started by an event (and so is this trigger's to stop).
    private(set) var recording = false
    /// When the last event ended while none goes on; nil while one goes on or without a recording.
    private(set) var quietSince: Double?

    package init(kinds: Set<String>, postRecordS: Double, eventGapS: Double) {
        (self.kinds, self.postRecordS, self.eventGapS) = (kinds, postRecordS, eventGapS)
    }

    /// `[recording] trigger`: "manual", or kinds joined by "+" ("motion+sound", "person").
    package init(trigger: String, postRecordS: Double, eventGapS: Double) {
        self.init(
            kinds: trigger == "manual" ? [] : Set(trigger.split(separator: "+").map(String.init)),
            postRecordS: postRecordS, eventGapS: eventGapS)
    }

    /// How long after the last event the recording ends.
    var tailS: Double { max(postRecordS, eventGapS) }

    /// The kind an object of `label` goes by: `object:person`; it triggers when "object" or "person" does.
    package static func object(_ label: String) -> String { "object:" + label }

    private func triggers(_ kind: String) -> Bool {
        guard kind.hasPrefix("object:") else { return kinds.contains(kind) }
        return kinds.contains("object") || kinds.contains(String(kind.dropFirst("object:".count)))
    }

    /// An event of `kind` started: a recording starts unless one goes on (which then goes on past its end).
    package mutating func started(_ kind: String, at time: Double) -> Action? {
        guard triggers(kind) else { return nil }
        going.insert(kind)
        quietSince = nil
        if recording { return nil }
        recording = true
        return .start
    }

    /// An event of `kind` ended; the recording's tail starts when no event goes on.
    package mutating func ended(_ kind: String, at time: Double) {
        guard triggers(kind), going.remove(kind) != nil else { return }
        if going.isEmpty, recording { quietSince = time }
    }

    /// When the recording should end, if nothing else happens (nil: not now).
    package var stopAt: Double? { quietSince.map { $0 + tailS } }

    /// The time now: the recording ends once its tail has passed.
    package mutating func tick(at time: Double) -> Action? {
        guard let stop = stopAt, time >= stop else { return nil }
        recordingEnded()
        return .stop
    }

    /// The recording could not be started (one was already going on, started by hand: not this trigger's).
    package mutating func startRefused() {
        recording = false
        quietSince = nil
    }

    /// The recording ended, whoever ended it: the next event starts another.
    package mutating func recordingEnded() {
        recording = false
        quietSince = nil
    }
}
