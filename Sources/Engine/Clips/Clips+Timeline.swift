import ApplianceBase
import ApplianceProtocol
import Foundation

/// `timeline`: a range's recorded spans, gaps, locks and activity in one answer (the dashboard's day bar and
/// `ctl timeline`).
extension Clips {
    /// `channel`: that channel's recordings and activity only (nil: every channel's).
    package func timeline(from: Date, to: Date, channel: String? = nil) async throws -> Timeline {
        let started = ContinuousClock.now
        let now = Date()
        let first = config.channels.first?.name
        let files = try await library.timelineFiles(
            from: from, to: to, longest: RecordingBin.longestFileS(config) + 60, now: now, channel: channel,
            firstChannel: first)
        let events = try await library.activity(
            ActivityFilter(from: from, to: to, limit: Timeline.maxEvents, channel: channel), firstChannel: first)
        var timeline = TimelineBuilder.build(files: files, events: events, from: from, to: to, now: now)
        let elapsed = ContinuousClock.now - started
        timeline.elapsedMs = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        return timeline
    }
}
