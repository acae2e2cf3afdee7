import ApplianceProtocol
import Foundation

/// What the console shows, built from `status`, `list` and the event stream; a plain value, so the renderer is a
/// pure function of it and the tests can build one by hand.
struct ConsoleModel: Sendable, Equatable {
    /// The clip shown as "last clip".
    struct Clip: Sendable, Equatable {
        var id: String
        var title: String
        var durationMs: Int?
        var path: String
    }

    var socketPath = ""
    var state: RecorderState = .idle
    /// When the recording in progress began (a loop recording: its first segment), on this machine's clock.
    var recordingStart: Date?
    /// The recording in progress: its group (loop recording) or its id, so a new segment keeps the elapsed time.
    var recordingKey: String?
    var recordingTitle: String?
    var cameras: [String] = []
    var activeCamera = ""
    var capacity: Capacity?
    var storageFull: String?
    var lastClip: Clip?
    /// The answer to the latest key, or the latest thing worth saying (an error, an event).
    var message: String?
    var messageIsError = false
    /// Set when the daemon went away: why.
    var disconnected: String?
    /// The dashboard's address and, over HTTPS, its certificate's SHA-256 fingerprint (to check on a first visit).
    var webURL: String?
    var webFingerprint: String?

    /// Takes what `status` says: the state, the recording's start (kept while it is the same recording, so the
    /// ticking does not jitter with each answer), cameras and capacity.
    mutating func apply(status s: StatusReport, at now: Date = Date()) {
        state = s.state
        if let live = s.recording {
            let key = live.group ?? live.id
            if key != recordingKey || recordingStart == nil {
                recordingStart = now.addingTimeInterval(-Double(live.elapsedMs) / 1000)
                recordingKey = key
            }
            recordingTitle = live.title
        } else if s.state == .idle {
            (recordingStart, recordingKey, recordingTitle) = (nil, nil, nil)
        }
        cameras = s.cameras
        activeCamera = s.activeCamera
        capacity = s.capacity
        storageFull = s.storageFull
        (webURL, webFingerprint) = (s.web?.url, s.web?.fingerprint)
    }

    /// Takes an event from the stream; returns whether a fresh `status` is worth asking for.
    mutating func apply(event: ApplianceEvent) -> Bool {
        if let notice = Self.notice(event) {
            say(notice.line, error: notice.error)
            return notice.refresh
        }
        switch event {
        case .recordingStarted(let r):
            let key = r.group ?? r.id
            if key != recordingKey {
                recordingStart = r.createdAt
                recordingKey = key
            }
            state = .recording
            recordingTitle = r.title
            return true
        case .recordingStopped(let r):
            if r.stopReason != .segment {
                state = .idle
                (recordingStart, recordingKey, recordingTitle) = (nil, nil, nil)
            }
            lastClip = Clip(id: r.id, title: r.title, durationMs: r.durationMs, path: r.path)
            if r.stopReason != .request, r.stopReason != .segment {
                say("recording stopped: \(r.stopReason.rawValue.replacingOccurrences(of: "_", with: " "))", error: true)
            }
            return true
        case .segmentClosed(let r):
            lastClip = Clip(id: r.id, title: r.title, durationMs: r.durationMs, path: r.path)
            return true
        case .renamed(let r):
            if lastClip?.id == r.id { lastClip?.title = r.title }
            if recordingKey == r.id { recordingTitle = r.title }
            return false
        case .deleted(let r):
            if lastClip?.id == r.id { lastClip?.path = "(deleted)" }
            return true
        case .cameraSwitched(let c):
            activeCamera = c.to
            return false
        case .cameraAvailable, .cameraMissing, .storageAvailable, .retentionDeleted, .ready:
            return true
        case .storageFull(let f):
            capacity = f.capacity
            say("storage full: \(f.reason)", error: true)
            return true
        case .cameraFailed, .storageMissing, .error, .stalled, .encoderFailed, .clockJumped, .authFailed,
            .objectStarted, .speakerFailed:
            return false  // told by `notice`
        case .inputGesture, .inputConnected, .inputMissing, .thumbnailReady, .locked, .unlocked, .exported,
            .backupStarted,
            .backupProgress, .backupDone, .backupRetry, .backupFailed, .backupPaused, .backupResumed, .backupDeleted,
            .flowing, .retentionWarning, .deviceAdded, .deviceRemoved, .mqttConnected, .mqttDisconnected,
            .motionStarted,
            .motionEnded, .soundStarted, .soundEnded, .objectEnded, .activity, .speakerPlayed:
            return false
        }
    }

    /// The line an event that only informs puts on the console: whether it is an error, and whether a fresh `status`
    /// is worth asking for.
    static func notice(_ event: ApplianceEvent) -> (line: String, error: Bool, refresh: Bool)? {
        switch event {
        case .cameraFailed(let c): ("camera \(c.camera) failed: \(c.reason)", true, true)
        case .storageMissing(let s): ("storage missing: \(s.detail ?? s.recordingsDir)", true, true)
        case .error(let e): ("error: \(e.message)", true, false)
        case .stalled(let s): ("stalled: \(s.reason)", true, false)
        case .encoderFailed(let f): ("encoder \(f.encoder) failed (\(f.reason)); now \(f.next)", true, false)
        case .clockJumped(let j):
            ("the clock jumped by \(j.jumpWords); \(j.redatedRecordings) clips dated again", false, false)
        case .objectStarted(let o): ("\(o.label) seen (score \(String(format: "%.2f", o.score)))", false, false)
        case .authFailed(let f):
            ("refused \(f.user.map { "\"\($0)\" " } ?? "")from \(f.client) on \(f.door): \(f.reason)", true, false)
        case .speakerFailed(let f): ("the speaker cannot play \(f.sound): \(f.reason)", true, false)
        default: nil
        }
    }

    /// Takes the answer to a command sent from a key.
    mutating func apply(result: CommandResult) {
        switch result {
        case .toggled(let t):
            if let started = t.started {
                _ = apply(event: .recordingStarted(started))
                say("recording \"\(started.title)\"")
            } else if let stopped = t.stopped {
                _ = apply(event: .recordingStopped(stopped))
                say("saved \(stopped.path) (\(ConsoleRenderer.clock(stopped.durationMs)))")
            }
        case .snapshot(let s):
            say("snapshot \(s.path) (\(s.width)x\(s.height))")
        case .protected(let p):
            var text = "protected: locked \(p.locked.count) clip(s)"
            if p.pendingUntil != nil { text += ", and what is recorded until \(ConsoleRenderer.timeOfDay(p.to))" }
            say(text)
        case .switched(let s):
            if let active = s.active { activeCamera = active }
            say(
                s.switched
                    ? "camera: \(s.previous ?? "none") → \(s.active ?? "")"
                    : "camera: \(s.active ?? "") (the only usable one)")
        case .status(let s):
            apply(status: s)
        case .list(let l):
            if let newest = l.items.first, newest.state != .recording {
                lastClip = Clip(id: newest.id, title: newest.title, durationMs: newest.durationMs, path: newest.path)
            }
        default:
            break
        }
    }

    mutating func say(_ text: String, error: Bool = false) {
        (message, messageIsError) = (text, error)
    }
}
