import Foundation

/// A range of time at a glance (a day, for the dashboard's bar and `ctl timeline`): what was recorded, where
/// nothing was, which recordings are locked, and what happened.
public struct Timeline: Codable, Sendable, Equatable {
    public var from: Date
    public var to: Date
    /// Recorded time, oldest first: files that follow one another (less than `TimelineSpan.joinGapS` apart) are one
    /// span. Clipped to [from, to).
    public var spans: [TimelineSpan]
    /// The parts of [from, min(to, now)) that no span covers, oldest first.
    public var gaps: [TimelineRange]
    /// Locked recordings' time, merged, oldest first.
    public var locks: [TimelineRange]
    /// Activity that meets the range, oldest first: the newest `maxEvents` when there are more (`eventsTotal`).
    public var events: [Activity]
    public var eventsTotal: Int
    /// Seconds recorded within the range.
    public var recordedS: Double
    /// How long the daemon took to answer, in milliseconds.
    public var elapsedMs: Double

    public init(
        from: Date, to: Date, spans: [TimelineSpan], gaps: [TimelineRange], locks: [TimelineRange], events: [Activity],
        eventsTotal: Int, recordedS: Double, elapsedMs: Double = 0
    ) {
        (self.from, self.to, self.spans, self.gaps, self.locks) = (from, to, spans, gaps, locks)
        (self.events, self.eventsTotal, self.recordedS, self.elapsedMs) = (events, eventsTotal, recordedS, elapsedMs)
    }

    public static let maxEvents = 1000
    /// The longest range one request may ask for.
    public static let maxRangeS = 7 * 86_400.0
}

/// Recorded time without a break: one clip, or a loop recording's run of segments.
public struct TimelineSpan: Codable, Sendable, Equatable {
    public var start: Date
    public var end: Date
    /// Files in the span.
    public var recordings: Int
    /// Its first file (where playing the span begins).
    public var firstId: String
    /// The loop recording all its files belong to; nil for a clip, or files of different recordings.
    public var group: String?
    public var cameras: [String]
    /// Files in it that are locked.
    public var locked: Int
    /// It ends in the file being written now.
    public var live: Bool
    /// The channel whose files it holds: each channel has spans of its own, side by side in time (nil: rows from
    /// before channels, read without a channel).
    public var channel: String?

    public init(
        start: Date, end: Date, recordings: Int, firstId: String, group: String? = nil, cameras: [String] = [],
        locked: Int = 0,
        live: Bool = false, channel: String? = nil
    ) {
        (self.start, self.end, self.recordings, self.firstId, self.group) = (start, end, recordings, firstId, group)
        (self.cameras, self.locked, self.live, self.channel) = (cameras, locked, live, channel)
    }

    /// Files less than this far apart (seconds) are one span: a loop's segments meet exactly, and a clip started
    /// again at once after a stop leaves well under a second.
    public static let joinGapS = 1.5
}

public struct TimelineRange: Codable, Sendable, Equatable {
    public var start: Date
    public var end: Date
    public init(start: Date, end: Date) { (self.start, self.end) = (start, end) }
}

/// A month's days at a glance, for the timeline's calendar: which days hold recordings and events.
public struct TimelineDays: Codable, Sendable, Equatable {
    /// The month, `2026-11`.
    public var month: String
    /// Only days with something recorded or happened, oldest first.
    public var days: [TimelineDay]

    public init(month: String, days: [TimelineDay]) { (self.month, self.days) = (month, days) }
}

public struct TimelineDay: Codable, Sendable, Equatable {
    /// The local day, `2026-11-26`.
    public var day: String
    /// Recordings that began that day, their length in seconds, and how many are locked.
    public var recordings: Int
    public var recordedS: Double
    public var locked: Int
    /// Activity that began that day.
    public var events: Int

    public init(day: String, recordings: Int = 0, recordedS: Double = 0, locked: Int = 0, events: Int = 0) {
        (self.day, self.recordings, self.recordedS, self.locked, self.events) = (
            day, recordings, recordedS, locked, events
        )
    }
}
