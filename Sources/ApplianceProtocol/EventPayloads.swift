import Foundation

/// The data of events that name one clip: `locked`, `unlocked`, `deleted`.
public struct ClipEvent: Codable, Sendable, Equatable {
    public var id: String
    public init(id: String) { self.id = id }
}

public struct ThumbnailReady: Codable, Sendable, Equatable {
    public var id: String
    public var thumbnail: String
    public init(id: String, thumbnail: String) { (self.id, self.thumbnail) = (id, thumbnail) }
}

public struct Renamed: Codable, Sendable, Equatable {
    public var id: String
    public var title: String
    public init(id: String, title: String) { (self.id, self.title) = (id, title) }
}

/// An error GStreamer posted: `source` is the element's path (`/appliance/camera-main/src`).
public struct PipelineError: Codable, Sendable, Equatable {
    public var source: String
    public var message: String
    public init(source: String, message: String) { (self.source, self.message) = (source, message) }
}

public struct CameraSwitched: Codable, Sendable, Equatable {
    /// Absent when no camera was active (start-up, or after a failure).
    public var from: String?
    public var to: String
    public var latencyMs: Double
    public init(from: String?, to: String, latencyMs: Double) {
        (self.from, self.to, self.latencyMs) = (from, to, latencyMs)
    }
}

public struct CameraFailure: Codable, Sendable, Equatable {
    public var camera: String
    public var reason: String
    public init(camera: String, reason: String) { (self.camera, self.reason) = (camera, reason) }
}

/// A configured V4L2 camera's device node appeared or disappeared.
public struct CameraDevice: Codable, Sendable, Equatable {
    public var camera: String
    public var device: String
    public init(camera: String, device: String) { (self.camera, self.device) = (camera, device) }
}

/// An upload began (`backup_started`) or a remote copy was removed (`backup_deleted`).
public struct BackupTransfer: Codable, Sendable, Equatable {
    public var id: String
    public var remote: String
    public init(id: String, remote: String) { (self.id, self.remote) = (id, remote) }
}

public struct BackupDone: Codable, Sendable, Equatable {
    public var id: String
    public var remote: String
    public var bytes: Int64
    public var rateKbps: Double
    public init(id: String, remote: String, bytes: Int64, rateKbps: Double) {
        (self.id, self.remote, self.bytes, self.rateKbps) = (id, remote, bytes, rateKbps)
    }
}

public struct BackupRetryScheduled: Codable, Sendable, Equatable {
    public var id: String
    public var error: String
    public var retryInS: Double
    public init(id: String, error: String, retryInS: Double) {
        (self.id, self.error, self.retryInS) = (id, error, retryInS)
    }
}

public struct BackupFailure: Codable, Sendable, Equatable {
    public var id: String
    public var error: String
    public init(id: String, error: String) { (self.id, self.error) = (id, error) }
}

/// Why the backup queue paused or resumed.
public struct BackupPause: Codable, Sendable, Equatable {
    public var reason: String
    public init(reason: String) { self.reason = reason }
}

/// The daemon is ready: the socket answers and the first video frame passed the camera selector.
public struct Ready: Codable, Sendable, Equatable {
    /// From the start of `appliance run` to readiness.
    public var startupMs: Double
    public init(startupMs: Double) { self.startupMs = startupMs }
}

/// `stalled` and `flowing`: what stopped (or started again), and for how long it had.
public struct Stall: Codable, Sendable, Equatable {
    /// "no output frame for 3.0 s", "the GStreamer bus thread has not turned for 3.0 s", or what resumed.
    public var reason: String
    /// Seconds since the last output frame (or bus turn) when the stall was noticed; the stall's length on resume.
    public var seconds: Double

    public init(reason: String, seconds: Double) { (self.reason, self.seconds) = (reason, seconds) }
}

/// `encoder_failed`: the encoder that failed while running, why, and the one that replaced it. The clip being
/// recorded ended there (`recording_stopped` with reason `encoder_failed`) and the next began with the new encoder.
public struct EncoderFailure: Codable, Sendable, Equatable {
    /// The fragment that failed (`vah264`) and its element (`vah264enc`).
    public var encoder: String
    public var element: String
    /// "the encoder returned \"error\"", a bus error's text, or "no output for 5.0 s while frames went in".
    public var reason: String
    /// The fragment and element now in use.
    public var next: String
    public var nextElement: String
    /// The channel whose encoder it was, after the first (absent: the first's).
    public var channel: String?

    public init(encoder: String, element: String, reason: String, next: String, nextElement: String) {
        (self.encoder, self.element, self.reason, self.next, self.nextElement) = (
            encoder, element, reason, next, nextElement
        )
    }
}

/// Motion on the live picture (`motion_started`, `motion_ended`): when it began (the first frame of the run that
/// lasted `[motion] min_duration_s`), when it ended (the last frame with motion; absent while it goes on), the zones
/// it touched, its largest score (the part of the watched picture in motion, 0–1), and the channel whose picture
/// moved (absent: the first's).
public struct MotionEvent: Codable, Sendable, Equatable {
    public var camera: String?
    public var startedAt: Date
    public var endedAt: Date?
    public var zones: [String]
    public var peakScore: Double
    public var channel: String?
    public init(
        camera: String?, startedAt: Date, endedAt: Date? = nil, zones: [String], peakScore: Double,
        channel: String? = nil
    ) {
        (self.camera, self.startedAt, self.endedAt, self.zones, self.peakScore) = (
            camera, startedAt, endedAt, zones, peakScore
        )
        self.channel = channel
    }
}

/// Sound above `[sound] threshold_db` (`sound_started`, `sound_ended`): when it began (the first loud reading of the
/// run that lasted `min_duration_s`), when it ended (the last loud reading; absent while it goes on), and its loudest
/// RMS level in dBFS.
public struct SoundEvent: Codable, Sendable, Equatable {
    public var startedAt: Date
    public var endedAt: Date?
    public var peakDb: Double
    public init(startedAt: Date, endedAt: Date? = nil, peakDb: Double) {
        (self.startedAt, self.endedAt, self.peakDb) = (startedAt, endedAt, peakDb)
    }
}

/// The wall clock jumped (`clock_jumped`): by how much (`jump_s`, positive forwards), from what to what, and how many
/// clips and activities recorded earlier in this boot were dated again by it.
public struct ClockJump: Codable, Sendable, Equatable {
    public var jumpS: Double
    public var from: Date
    public var to: Date
    public var redatedRecordings: Int
    public var redatedActivities: Int
    public init(jumpS: Double, from: Date, to: Date, redatedRecordings: Int = 0, redatedActivities: Int = 0) {
        (self.jumpS, self.from, self.to, self.redatedRecordings, self.redatedActivities) = (
            jumpS, from, to, redatedRecordings, redatedActivities
        )
    }

    /// The jump in words, with its direction: "+2 d 0 h", "-3 h 12 min", "+45 s".
    public var jumpWords: String {
        let s = Int(abs(jumpS).rounded())
        let size =
            s >= 86_400
            ? "\(s / 86_400) d \(s % 86_400 / 3600) h"
            : s >= 3600 ? "\(s / 3600) h \(s % 3600 / 60) min" : s >= 60 ? "\(s / 60) min \(s % 60) s" : "\(s) s"
        return (jumpS < 0 ? "-" : "+") + size
    }
}
