import ApplianceBase
import ApplianceProtocol
import Foundation

/// `timeline`: a range's recorded spans, gaps, locks and activity in one answer (the dashboard's day bar and
/// `ctl timeline`).
extension Clips {
    package func timeline(from: Date, to: Date) async throws -> Timeline {
        let started = ContinuousClock.now
        let now = Date()
        let files = try await library.timelineFiles(
            from: from, to: to, longest: RecordingBin.longestFileS(config) + 60, now: now)
        let events = try await library.activity(ActivityFilter(from: from, to: to, limit: Timeline.maxEvents))
        var timeline = TimelineBuilder.build(files: files, events: events, from: from, to: to, now: now)
        let elapsed = ContinuousClock.now - started
        timeline.elapsedMs = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return timeline
    }
}
