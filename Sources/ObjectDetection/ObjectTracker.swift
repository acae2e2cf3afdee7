import Foundation

/// Turns detections, run after run, into objects that start and end, as Frigate judges them: a detection counts
/// only at `minScore` or above; a label starts once it was found in `confirmRuns` of the last `window` runs and the
/// (lower) median of its best scores in them reaches `threshold` (one stray high score is not an object: foliage
/// gives such);
/// it ends when no run found it for `releaseS` seconds. Pure values: the caller brings the time and the detections.
public struct ObjectTracker: Sendable {
    public struct Settings: Sendable, Equatable {
        public var minScore: Double
        public var threshold: Double
        public var confirmRuns: Int
        public var window: Int
        public var releaseS: Double

        public init(
            minScore: Double = 0.5, threshold: Double = 0.7, confirmRuns: Int = 2, window: Int = 3, releaseS: Double = 5
        ) {
            (self.minScore, self.threshold, self.confirmRuns, self.window, self.releaseS) = (
                minScore, threshold, confirmRuns, window, releaseS
            )
        }
    }

    /// What a run changed.
    public enum Change: Sendable, Equatable {
        /// `label` is present from `at` (the first run of the ones that confirmed it), with its best detection so far.
        case started(label: String, at: Date, best: ObjectDetection)
        /// `label` was last seen at `lastSeen`; `best` is its best detection while present.
        case ended(label: String, startedAt: Date, lastSeen: Date, best: ObjectDetection)
    }

    private struct Track {
        /// The label's best score in each of the last runs (nil: not found in that run), newest last.
        var recent: [Double?] = []
        var firstSeen: Date?
        var lastSeen: Date?
        var best: ObjectDetection?
        var startedAt: Date?
    }

    public let settings: Settings
    private var tracks: [String: Track] = [:]

    public init(settings: Settings = Settings()) { self.settings = settings }

    /// The labels present now.
    public var present: [String] { tracks.filter { $0.value.startedAt != nil }.keys.sorted() }

    /// When the object of `label` present now started (nil: none is).
    public func startedAt(_ label: String) -> Date? { tracks[label]?.startedAt }

    /// Takes one run's detections (all labels) made at `now`; answers what started and what ended.
    public mutating func run(_ detections: [ObjectDetection], at now: Date) -> [Change] {
        var bestByLabel: [String: ObjectDetection] = [:]
        for d in detections where d.score >= settings.minScore && d.score.isFinite {
            if bestByLabel[d.label].map({ d.score > $0.score }) ?? true { bestByLabel[d.label] = d }
        }
        var changes: [Change] = []
        for label in Set(tracks.keys).union(bestByLabel.keys).sorted() {
            var track = tracks[label] ?? Track()
            let found = bestByLabel[label]
            track.recent = Array((track.recent + [found?.score]).suffix(settings.window))
            if let found {
                if track.firstSeen == nil || track.recent.compactMap({ $0 }).count == 1 { track.firstSeen = now }
                track.lastSeen = now
                if track.best.map({ found.score > $0.score }) ?? true { track.best = found }
            }
            changes += step(label, &track, now: now)
            tracks[label] = track.lastSeen == nil && track.startedAt == nil ? nil : track
        }
        return changes
    }

    /// Ends every object present now (the camera was switched: another picture) and forgets the rest.
    public mutating func endAll() -> [Change] {
        defer { tracks = [:] }
        return tracks.keys.sorted().compactMap { label in
            let t = tracks[label]!
            guard let startedAt = t.startedAt, let lastSeen = t.lastSeen, let best = t.best else { return nil }
            return .ended(label: label, startedAt: startedAt, lastSeen: lastSeen, best: best)
        }
    }

    private func step(_ label: String, _ track: inout Track, now: Date) -> [Change] {
        if let startedAt = track.startedAt {
            guard let lastSeen = track.lastSeen, now.timeIntervalSince(lastSeen) >= settings.releaseS,
                let best = track.best
            else { return [] }
            track = Track()
            return [.ended(label: label, startedAt: startedAt, lastSeen: lastSeen, best: best)]
        }
        let scores = track.recent.compactMap { $0 }
        if scores.count >= settings.confirmRuns, Self.median(scores) >= settings.threshold, let best = track.best,
            let first = track.firstSeen
        {
            track.startedAt = first
            return [.started(label: label, at: first, best: best)]
        }
        if scores.isEmpty { track = Track() }  // nothing within the window: forget the label
        return []
    }

    /// The lower median: of two scores, the lower (one high score beside a low one is not a held score).
    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[(sorted.count - 1) / 2]
    }
}
