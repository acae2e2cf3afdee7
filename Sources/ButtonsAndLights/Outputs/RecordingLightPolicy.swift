import ApplianceProtocol

/// What a recording light shows.
package enum LightShow: Equatable, Sendable {
    case off, on
    /// A fault: what it is (`storage_missing`, `camera_failed: front`, …).
    case blinking(String)

    /// Whether the light is lit in this phase of the blink (`phase` alternates true/false).
    package func lit(phase: Bool) -> Bool {
        switch self {
        case .off: false
        case .on: true
        case .blinking: phase
        }
    }
}

/// What the recording light knows of the appliance: only what the one entry point answers (`status`, `cameras`,
/// `backup.status`) and what the events say, never guessed. `RecordingLightPolicy` turns it into a `LightShow`.
package struct LightFacts: Equatable, Sendable {
    /// Whether any channel records.
    package var recording = false
    /// The channels that record (by name), for a light that follows one channel (`[[output]] channel`).
    package var recordingChannels: Set<String> = []
    package var storageMissing = false
    /// Why recording cannot go on for lack of space (status' `storage_full`).
    package var storageFull: String?
    package var storageLow = false
    /// Cameras in state `error`, and configured devices that are not there.
    package var failedCameras: [String] = []
    package var missingCameras: [String] = []
    /// The backup's pause reason.
    package var backupPaused: String?

    package init(
        recording: Bool = false, storageMissing: Bool = false, storageFull: String? = nil, storageLow: Bool = false,
        failedCameras: [String] = [], missingCameras: [String] = [], backupPaused: String? = nil
    ) {
        (self.recording, self.storageMissing, self.storageFull, self.storageLow) = (
            recording, storageMissing, storageFull, storageLow
        )
        (self.failedCameras, self.missingCameras, self.backupPaused) = (failedCameras, missingCameras, backupPaused)
    }

    /// Whether the channel named records (nil: any channel).
    package func recording(in channel: String?) -> Bool {
        channel.map { recordingChannels.contains($0) } ?? recording
    }

    /// Takes what `status` says, channel by channel. A recorder that is finalising (`stopping`) keeps what the
    /// events said, so the light neither flickers on after `recording_stopped` nor goes out early.
    package mutating func apply(_ status: StatusReport, minFreeMb: Int) {
        if status.channels.isEmpty {  // a report without channels: the recorder's state alone
            switch status.state {
            case .recording: recording = true
            case .idle: recording = false
            case .stopping: break
            }
        } else {
            for channel in status.channels {
                switch channel.state {
                case .recording: recordingChannels.insert(channel.name)
                case .idle: recordingChannels.remove(channel.name)
                case .stopping: break
                }
            }
            recording = !recordingChannels.isEmpty
        }
        storageMissing = status.storage.state == .missing
        storageFull = status.storageFull
        storageLow = status.capacity.map { RecordingLightPolicy.storageLow($0, minFreeMb: minFreeMb) } ?? false
    }

    package mutating func apply(_ cameras: CamerasReport) {
        failedCameras = cameras.cameras.filter { $0.state == "error" }.map(\.name)
        missingCameras = cameras.cameras.filter { $0.state == "missing" }.map(\.name)
    }

    package mutating func apply(_ backup: BackupStatus) {
        backupPaused = backup.paused ? (backup.pauseReason ?? "paused") : nil
    }
}

/// The recording light's rules, pure: on while recording, off when idle, blinking on a fault whatever the recorder
/// does (a dashcam's driver must see that it is not being recorded as it should be).
package enum RecordingLightPolicy {
    /// `channel`: the one channel a light follows (nil: any channel records).
    package static func show(_ facts: LightFacts, channel: String? = nil) -> LightShow {
        if let fault = faults(facts).first { return .blinking(fault) }
        return facts.recording(in: channel) ? .on : .off
    }

    /// Every fault present, the most serious first.
    package static func faults(_ f: LightFacts) -> [String] {
        var faults: [String] = []
        if f.storageMissing { faults.append("storage_missing") }
        if let full = f.storageFull { faults.append("storage_full: \(full)") }
        if f.storageLow { faults.append("storage_low") }
        if !f.failedCameras.isEmpty { faults.append("camera_failed: " + f.failedCameras.joined(separator: ", ")) }
        if !f.missingCameras.isEmpty { faults.append("camera_missing: " + f.missingCameras.joined(separator: ", ")) }
        if let paused = f.backupPaused { faults.append("backup_paused: \(paused)") }
        return faults
    }

    /// Storage is low when the room to record — free space plus the clips retention may delete — is under twice
    /// `min_free_mb` (what `appliance doctor` warns about): retention can barely keep the minimum free.
    package static func storageLow(_ c: Capacity, minFreeMb: Int) -> Bool {
        let minFree = Int64(minFreeMb) * 1_000_000
        return c.freeBytes + max(0, c.usedBytes - c.lockedBytes) < 2 * minFree
    }

    /// What to ask the entry point again after an event.
    package struct Refresh: OptionSet, Sendable {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        package static let status = Refresh(rawValue: 1), cameras = Refresh(rawValue: 2), backup = Refresh(rawValue: 4)
        package static let all: Refresh = [.status, .cameras, .backup]
    }

    /// Folds what an event says straight into the facts (so the light answers without a round trip), and says
    /// what to ask again; an event the light does not follow changes nothing.
    package static func fold(_ event: ApplianceEvent, into facts: inout LightFacts) -> Refresh {
        switch event {
        case .recordingStarted(let started):
            facts.recording = true
            facts.recordingChannels.insert(started.channel ?? "")
            return []
        case .recordingStopped(let result):
            facts.recordingChannels.remove(result.channel ?? "")
            facts.recording = !facts.recordingChannels.isEmpty
            return .status  // the clip changed the capacity
        case .storageMissing:
            facts.storageMissing = true
            return .status
        case .storageAvailable:
            facts.storageMissing = false
            return .status
        case .storageFull(let full):
            facts.storageFull = full.reason
            return .status
        case .retentionDeleted, .retentionWarning: return .status
        case .cameraFailed(let failure):
            if !facts.failedCameras.contains(failure.camera) { facts.failedCameras.append(failure.camera) }
            return .cameras
        case .cameraSwitched, .cameraAvailable, .cameraMissing: return .cameras
        case .backupPaused(let pause):
            facts.backupPaused = pause.reason
            return .backup
        case .backupResumed:
            facts.backupPaused = nil
            return .backup
        default: return []
        }
    }
}
