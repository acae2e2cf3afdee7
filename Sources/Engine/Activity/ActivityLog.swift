import ApplianceProtocol
import Foundation
import Logging
import MediaLibrary
import Settings

/// What happened, as records: activity begins and ends (from the detectors' events, a press, a mark), is stored by
/// the library, marks the recordings that cover it (retention keeps those longer), and is listed, shown and
/// protected by the `activity.*` commands. Every stored or closed activity is an `activity` event.
package struct ActivityLog: Sendable {
    package let clips: Clips
    package let pictures: ActivityPictures
    package let activeCamera: @Sendable () async -> String?

    package init(clips: Clips, pictures: ActivityPictures, activeCamera: @escaping @Sendable () async -> String?) {
        self.clips = clips
        self.pictures = pictures
        self.activeCamera = activeCamera
    }
    /// Activity records kept at most, newest first, whatever their age (`event_keep_days` = 0 keeps them by number).
    static let maxRecords = 50_000

    private var library: Library { clips.library }
    private var config: ApplianceConfig { clips.config }
    private var longest: TimeInterval { RecordingBin.longestFileS(config) + 60 }

    // MARK: commands

    package func list(_ filter: ActivityFilter) async throws -> ActivityList {
        try await library.activity(filter, longest: longest, firstChannel: config.channels.first?.name)
    }

    package func show(id: Int64) async throws -> ActivityDetail {
        let activity = try await find(id)
        let recordings = try await library.overlapping(
            from: activity.startedAt, to: activity.endedAt ?? Date(), longest: longest)
        return ActivityDetail(activity: activity, recordings: recordings)
    }

    /// `activity.mark`: an external activity (now, or at a given moment), its picture when it is now.
    package func mark(_ mark: ActivityMark) async throws -> Activity {
        let now = Date()
        let start = mark.at ?? now
        guard start <= now.addingTimeInterval(60) else { throw ApplianceError(.badRequest, "args.at is in the future") }
        let activity = Activity(
            id: 0, kind: .external, label: mark.label, camera: await activeCamera(), startedAt: start,
            endedAt: start.addingTimeInterval(mark.durationS ?? 0))
        return try await record(activity, picture: abs(start.timeIntervalSince(now)) < 2)
    }

    /// `activity.protect`: locks the recordings that cover it (while it goes on, until the end of the tail).
    package func protect(id: Int64) async throws -> ProtectResult {
        let activity = try await find(id)
        let end = activity.endedAt ?? Date().addingTimeInterval(config.recording.postRecordS)
        clips.logger.notice("protect: activity \(id) (\(activity.kind.rawValue))")
        return try await clips.protect(from: activity.startedAt, to: end)
    }

    /// A press of the event button (`protect` from any front end): a `manual` activity at that moment.
    package func pressed(_ result: ProtectResult) async {
        let now = Date()
        let activity = Activity(
            id: 0, kind: .manual, label: "protect", camera: await activeCamera(), startedAt: now, endedAt: now)
        do {
            _ = try await record(activity, picture: true, covering: (result.from, result.to))
        } catch {
            clips.logger.error("activity: the press could not be stored: \(error)")
        }
    }

    // MARK: from the detectors

    /// Stores an activity that has begun (or a whole one) and marks the recordings under it so far.
    package func begin(_ activity: Activity) async throws -> Activity {
        let stored = try await library.insertActivity(inChannel(activity))
        try await library.markCovering(
            from: activity.startedAt, to: activity.endedAt ?? Date(), longest: longest, weight: Self.weight(activity))
        return stored
    }

    /// Writes its end, marks every recording under it and announces it.
    package func end(_ activity: Activity) async throws {
        var closed = activity
        closed.thumbnail = closed.thumbnail ?? pictures.existing(kind: activity.kind, startedAt: activity.startedAt)
        closed = try await library.updateActivity(closed)
        try await library.markCovering(
            from: closed.startedAt, to: closed.endedAt ?? Date(), longest: longest, weight: Self.weight(closed))
        clips.events.publish(.activity(closed))
    }

    /// Closes what a stopped daemon left open, and forgets activity older than `event_keep_days` with its pictures.
    func tidy(now: Date = Date()) async {
        do {
            for closed in try await library.closeOpenActivity() {
                clips.logger.notice(
                    "activity \(closed.id) (\(closed.kind.rawValue)) was left open by the last run: closed at its start"
                )
            }
            let days = config.storage.eventKeepDays
            let cutoff = days > 0 ? now.addingTimeInterval(-Double(days) * 86_400) : nil
            for path in try await library.deleteActivity(startedBefore: cutoff, keep: Self.maxRecords) {
                try? FileManager.default.removeItem(atPath: path)
            }
        } catch {
            clips.logger.error("activity: \(error)")
        }
    }

    // MARK: helpers

    /// A tracked object weighs most when retention needs room.
    static func weight(_ activity: Activity) -> Library.EventWeight { activity.kind == .object ? .object : .activity }

    private func record(_ activity: Activity, picture: Bool, covering: (Date, Date)? = nil) async throws -> Activity {
        var stored = activity
        if picture { stored.thumbnail = await pictures.capture(kind: activity.kind, startedAt: activity.startedAt) }
        stored = try await library.insertActivity(inChannel(stored))
        let (from, to) = covering ?? (stored.startedAt, stored.endedAt ?? stored.startedAt)
        try await library.markCovering(from: from, to: to, longest: longest)
        clips.events.publish(.activity(stored))
        return stored
    }

    /// The activity as this channel's (the config is the channel's view: its one channel).
    private func inChannel(_ activity: Activity) -> Activity {
        var stamped = activity
        stamped.channel = stamped.channel ?? config.channels.first?.name
        return stamped
    }

    private func find(_ id: Int64) async throws -> Activity {
        guard let activity = try await library.activity(id: id) else {
            throw ApplianceError(.notFound, "no activity with number \(id)")
        }
        return activity
    }
}
