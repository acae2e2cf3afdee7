import ApplianceProtocol
import ButtonsAndLights
import Foundation

/// What the MQTT bridge knows of the appliance: only what the entry point answers (`status`, `cameras`,
/// `backup.status`, `list`) and what the events say. Its health is the recording light's (`LightFacts`, one rule
/// set for "something is wrong"); `states` turns it into the retained state topics.
package struct MQTTFacts: Equatable, Sendable {
    package var health = LightFacts()
    package var activeCamera = ""
    /// Configured cameras in order, each with whether it has a problem (failed or missing).
    package var cameras: [String] = []
    /// When the recording in progress began (from `status`' elapsed time, or the start event).
    package var recordingSince: Date?
    package var freeBytes: Int64?
    package var wrapsInS: Double?
    package var clips = 0
    /// Clips waiting for backup (pending and uploading); nil when backup is off.
    package var backupQueue: Int?
    package var lastClip: Recording?
    /// The dashboard's address (for the thumbnail URL and Home Assistant's configuration URL).
    package var webURL: String?
    /// Whether motion / sound goes on; nil while that detection is off.
    package var motion: Bool?
    package var sound: Bool?
    /// Tracked objects present now, by label (how many the last detector run found; 0: none); nil while off.
    package var objects: [String: Int]?
    /// Today's activity by kind, and the day it counts (the start of the device's day); nil until asked.
    package var eventsToday: ActivityCounts?
    /// With several channels: each one's facts, in order (none with one channel: the device's topics say it all).
    package var channels: [MQTTChannelFacts] = []

    package mutating func apply(_ status: StatusReport, minFreeMb: Int, now: Date) {
        health.apply(status, minFreeMb: minFreeMb)
        activeCamera = status.activeCamera
        if cameras.isEmpty { cameras = status.cameras }
        switch status.state {
        case .recording:
            recordingSince =
                status.recording.map { now.addingTimeInterval(-Double($0.elapsedMs) / 1000) } ?? recordingSince
        case .idle: recordingSince = nil
        case .stopping: break
        }
        freeBytes = status.capacity?.freeBytes
        wrapsInS = status.capacity?.wrapsInS
        clips = status.recordingsTotal
        webURL = status.web?.url
        motion = status.motion?.active
        sound = status.sound.flatMap { $0.detecting ? $0.active : nil }
        objects = status.objects.map { o in Dictionary(uniqueKeysWithValues: o.track.map { ($0, o.present[$0] ?? 0) }) }
        let before = channels
        channels =
            status.channels.count > 1
            ? status.channels.map { c in MQTTChannelFacts(c, lastClip: before.first { $0.name == c.name }?.lastClip) }
            : []
    }

    /// Changes the facts of the channel an event names (nil: the first channel, whose events carry no name); a
    /// channel the facts do not list changes nothing.
    private mutating func channel(_ name: String?, _ change: (inout MQTTChannelFacts) -> Void) {
        guard let index = name == nil ? channels.indices.first : channels.firstIndex(where: { $0.name == name })
        else { return }
        change(&channels[index])
    }

    package mutating func apply(_ report: CamerasReport) {
        health.apply(report)
        cameras = report.cameras.map(\.name)
        if let active = report.active { activeCamera = active }
    }

    package mutating func apply(_ backup: BackupStatus) {
        health.apply(backup)
        backupQueue = backup.enabled ? backup.counts.pending + backup.counts.running : nil
    }

    /// Folds what an event says straight in, and says what to ask the entry point again.
    package mutating func fold(_ event: ApplianceEvent, now: Date) -> MQTTRefresh {
        var refresh = MQTTRefresh(light: RecordingLightPolicy.fold(event, into: &health))
        switch event {
        case .recordingStarted(let started):
            recordingSince = now
            if started.channel != nil { channel(started.channel) { $0.recording = true } }
        case .recordingStopped(let stopped):
            recordingSince = nil
            if stopped.channel != nil { channel(stopped.channel) { $0.recording = false } }
            refresh.formUnion([.lastClip, .status])
        case .segmentClosed, .thumbnailReady, .renamed, .deleted, .retentionDeleted:
            refresh.formUnion([.lastClip, .status])
        case .cameraSwitched(let switched):
            activeCamera = switched.to
        // The device's sensors follow the first channel's picture (its status too); another's events name it, and
        // each channel's own sensors follow its events.
        case .motionStarted(let m), .motionEnded(let m):
            let on = event.kind == .motionStarted
            if m.channel == nil { motion = on }
            channel(m.channel) { $0.motion = $0.motion.map { _ in on } }
        case .soundStarted, .soundEnded:
            sound = event.kind == .soundStarted
        case .objectStarted(let o), .objectEnded(let o):
            let present = event.kind == .objectStarted
            if o.channel == nil { MQTTChannelFacts.mark(o.label, present: present, in: &objects) }
            channel(o.channel) { MQTTChannelFacts.mark(o.label, present: present, in: &$0.objects) }
            if present { refresh.insert(.status) }  // how many
        case .activity:
            refresh.insert(.activityCounts)
        case .backupStarted, .backupDone, .backupFailed, .backupRetry, .backupDeleted:
            refresh.insert(.backup)
        default: break
        }
        return refresh
    }

    /// Seconds recorded so far (0 when idle).
    package func elapsedS(now: Date) -> Int {
        recordingSince.map { max(0, Int(now.timeIntervalSince($0))) } ?? 0
    }

    package var problems: [String] { RecordingLightPolicy.faults(health) }

    package var storage: String {
        if health.storageMissing { return "missing" }
        if health.storageFull != nil { return "full" }
        return health.storageLow ? "low" : "ok"
    }

    /// The retained state topics and their payloads (the thumbnail's bytes are added by the bridge, which reads the
    /// file). `None` is Home Assistant's "unknown" for a sensor.
    package func states(_ topics: MQTTTopics, now: Date) -> [String: [UInt8]] {
        var s: [String: String] = [
            topics.recording: health.recording ? "ON" : "OFF",
            topics.elapsed: "\(elapsedS(now: now))",
            topics.camera: activeCamera,
            topics.freeSpace: freeBytes.map { "\(Int(($0 + 500_000) / 1_000_000))" } ?? "None",
            topics.timeUntilWrap: wrapsInS.map { "\(Int($0.rounded()))" } ?? "None",
            topics.storage: storage,
            topics.problem: problems.isEmpty ? "OFF" : "ON",
            topics.problemAttributes: Self.json(["problems": .array(problems.map(JSONValue.string))]),
            topics.clips: "\(clips)",
            topics.backupQueue: backupQueue.map { "\($0)" } ?? "None",
            topics.lastClip: Self.json(lastClipValue),
        ]
        if let motion { s[topics.motion] = motion ? "ON" : "OFF" }
        if let sound { s[topics.sound] = sound ? "ON" : "OFF" }
        for (label, count) in objects ?? [:] {
            s[topics.object(label)] = count > 0 ? "ON" : "OFF"
            s[topics.objectCount(label)] = "\(count)"
        }
        if let eventsToday {
            s[topics.eventsToday] = "\(eventsToday.total)"
            s[topics.eventsTodayAttributes] = Self.json(
                .object(eventsToday.byKind.reduce(into: [:]) { $0[$1.key.rawValue] = .int($1.value) }))
        }
        for channel in channels { s.merge(channel.states(topics)) { $1 } }
        for camera in cameras {
            let trouble = health.failedCameras.contains(camera) || health.missingCameras.contains(camera)
            s[topics.camera(camera)] = trouble ? "ON" : "OFF"
        }
        return s.mapValues { Array($0.utf8) }
    }

    /// An activity as a Home Assistant event: `event_type` its kind, the rest attributes of the event entity.
    package static func eventPayload(_ activity: Activity, webURL: String?) -> JSONValue {
        let iso = ISO8601DateFormatter()
        var object: [String: JSONValue] = [
            "event_type": .string(activity.kind.rawValue), "id": .int(Int(activity.id)),
            "started_at": .string(iso.string(from: activity.startedAt)),
            "zones": .array(activity.zones.map(JSONValue.string)),
        ]
        if let label = activity.label { object["label"] = .string(label) }
        if let camera = activity.camera { object["camera"] = .string(camera) }
        if let ended = activity.endedAt { object["ended_at"] = .string(iso.string(from: ended)) }
        if let duration = activity.durationS { object["duration_s"] = .double((duration * 10).rounded() / 10) }
        if let peak = activity.peak { object["peak"] = .double(peak) }
        if let web = webURL, activity.thumbnail != nil {
            object["picture_url"] = .string(web + "/media/activity/\(activity.id)/picture")
        }
        return .object(object)
    }

    private var lastClipValue: JSONValue {
        guard let clip = lastClip else { return ["title": .null] }
        var object: [String: JSONValue] = [
            "id": .string(clip.id), "title": .string(clip.title),
            "duration_s": clip.durationMs.map { .double(Double($0) / 1000) } ?? .null,
            "camera": clip.camera.map(JSONValue.string) ?? .null,
            "locked": .bool(clip.locked),
        ]
        if let ended = clip.endedAt { object["ended_at"] = .string(ISO8601DateFormatter().string(from: ended)) }
        if let web = webURL, clip.thumbnail != nil {
            object["thumbnail_url"] = .string(web + "/media/\(clip.id)/thumbnail")
        }
        return .object(object)
    }

    package static func json(_ value: JSONValue) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}

/// How many activities a day has had, by kind (every kind present, 0 when none).
package struct ActivityCounts: Equatable, Sendable {
    package var day: Date
    package var byKind: [Activity.Kind: Int]
    package var total: Int { byKind.values.reduce(0, +) }

    /// The start of `now`'s day in the device's time zone.
    package static func day(of now: Date) -> Date { Calendar.current.startOfDay(for: now) }
}

/// What to ask the entry point again after an event.
package struct MQTTRefresh: OptionSet, Sendable {
    package let rawValue: Int
    package static let status = MQTTRefresh(rawValue: 1), cameras = MQTTRefresh(rawValue: 2),
        backup = MQTTRefresh(rawValue: 4)
    package static let lastClip = MQTTRefresh(rawValue: 8), activityCounts = MQTTRefresh(rawValue: 16)
    package static let all: MQTTRefresh = [.status, .cameras, .backup, .lastClip, .activityCounts]

    package init(rawValue: Int) { self.rawValue = rawValue }

    package init(light: RecordingLightPolicy.Refresh) {
        var r: MQTTRefresh = []
        if light.contains(.status) { r.insert(.status) }
        if light.contains(.cameras) { r.insert(.cameras) }
        if light.contains(.backup) { r.insert(.backup) }
        self = r
    }
}
