import Foundation

/// One thing that happened, kept by the library (table `activity`): motion, sound, an object (`object`: a tracked label
/// such as `person` found where motion was), a press of the event button
/// (`manual`: `protect` from any front end), or a mark from outside (`external`: `activity.mark` with a label, e.g.
/// an accelerometer or a door contact). Recordings are not stored with it: those that cover it are found by time.
public struct Activity: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable, CaseIterable {
        case motion, sound, manual, external, object
    }

    public var id: Int64
    public var kind: Kind
    /// What an external mark or a press said (`protect`), or an object's label (`person`); nil for motion and sound.
    public var label: String?
    /// The active camera when it began.
    public var camera: String?
    /// The channel whose picture or sound it was noticed in (absent on activity from before channels).
    public var channel: String?
    public var startedAt: Date
    /// Nil while it goes on (or when a daemon stopped during it and nothing closed it yet).
    public var endedAt: Date?
    /// Motion: the configured zones it touched.
    public var zones: [String]
    /// Motion: the largest share of the frame that changed (0…1); sound: the loudest RMS level in dBFS; an object:
    /// its best score.
    public var peak: Double?
    /// A picture of it (motion: the frame with the most change), a path under the data folder; nil when no frame was
    /// at hand.
    public var thumbnail: String?
    /// An object: where its best detection was (`peak` holds that detection's score).
    public var box: ObjectBox?
    /// In `activity` lists: the recording (clip or loop segment) whose span holds the moment it began, if one does.
    public var clip: String?

    public init(
        id: Int64, kind: Kind, label: String? = nil, camera: String? = nil, startedAt: Date, endedAt: Date? = nil,
        zones: [String] = [], peak: Double? = nil, thumbnail: String? = nil, box: ObjectBox? = nil,
        channel: String? = nil
    ) {
        (self.id, self.kind, self.label, self.camera, self.startedAt, self.endedAt) = (
            id, kind, label, camera, startedAt, endedAt
        )
        (self.zones, self.peak, self.thumbnail, self.box, self.channel) = (zones, peak, thumbnail, box, channel)
    }

    /// Seconds from start to end (nil while it goes on).
    public var durationS: Double? { endedAt.map { $0.timeIntervalSince(startedAt) } }
}

/// What `activity` keeps: kinds (any when empty), a label (an object's `person`, a mark's text; any when nil) and a
/// time range [`from`, `to`) that the activity meets.
public struct ActivityFilter: Sendable, Equatable {
    public var kinds: [Activity.Kind]
    public var label: String?
    public var from: Date?
    public var to: Date?
    public var limit: Int
    /// Only what this channel noticed (`[[channel]]`).
    public var channel: String?

    public init(
        kinds: [Activity.Kind] = [], label: String? = nil, from: Date? = nil, to: Date? = nil,
        limit: Int = ActivityFilter.defaultLimit, channel: String? = nil
    ) {
        (self.kinds, self.label, self.from, self.to, self.limit) = (kinds, label, from, to, limit)
        self.channel = channel
    }

    public static let defaultLimit = 100
    public static let maxLimit = 1000
}

/// What `activity` answers: the newest first, at most `limit`, and how many match in all.
public struct ActivityList: Codable, Sendable, Equatable {
    public var items: [Activity]
    public var total: Int
    public init(items: [Activity], total: Int) { (self.items, self.total) = (items, total) }
}

/// What `activity.show` answers: the activity and the recordings (clips or loop segments) that cover it, oldest
/// first.
public struct ActivityDetail: Codable, Sendable, Equatable {
    public var activity: Activity
    public var recordings: [Recording]
    public init(activity: Activity, recordings: [Recording]) {
        (self.activity, self.recordings) = (activity, recordings)
    }
}

/// What `activity.mark` asks for: a label, when (now if absent) and for how long (an instant if absent).
public struct ActivityMark: Sendable, Equatable {
    public var label: String
    public var at: Date?
    public var durationS: Double?

    public init(label: String, at: Date? = nil, durationS: Double? = nil) {
        (self.label, self.at, self.durationS) = (label, at, durationS)
    }

    public static let maxLabelLength = 200
    public static let maxDurationS = 86_400.0
}
