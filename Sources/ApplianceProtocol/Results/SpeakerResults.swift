/// What `play` asks the speaker for: a sound file on the device (any format GStreamer decodes), or one of the
/// device's own chimes by name (`SpeakerChime`).
public struct PlayRequest: Sendable, Equatable {
    public var file: String?
    public var chime: SpeakerChime?

    public init(file: String) { (self.file, self.chime) = (file, nil) }
    public init(chime: SpeakerChime) { (self.file, self.chime) = (nil, chime) }

    /// What is played, as events and status name it: the chime's name, or the file's path.
    public var sound: String { chime?.rawValue ?? file ?? "" }
}

/// The device's own sounds, made at start (short tones, nothing downloaded).
public enum SpeakerChime: String, Codable, Sendable, CaseIterable {
    case recordingStarted = "recording-started"
    case recordingStopped = "recording-stopped"
    case protected = "protected"
    case storageLow = "storage-low"
    case error = "error"
    /// A neutral two-tone chime (a doorbell, a test of the speaker).
    case chime = "chime"
}

/// What `play` answers once the sound has started.
public struct PlayResult: Codable, Sendable, Equatable {
    /// The chime's name or the file's path.
    public var sound: String
    /// Its length, when the file says.
    public var durationMs: Int?
    /// Where it plays: the ALSA device or the sink pipeline.
    public var speaker: String
    /// A sound cut short to play this one.
    public var interrupted: String?

    public init(sound: String, durationMs: Int?, speaker: String, interrupted: String? = nil) {
        (self.sound, self.durationMs, self.speaker, self.interrupted) = (sound, durationMs, speaker, interrupted)
    }
}

/// The speaker in `status` (absent when there is none).
public struct SpeakerStatus: Codable, Sendable, Equatable {
    public enum State: String, Codable, Sendable { case idle, playing, talking, error }
    public var state: State
    /// The ALSA device or the sink pipeline.
    public var speaker: String
    /// The sound playing now ("talk" while someone talks from the dashboard).
    public var playing: String?
    /// Why the last sound could not be played on it (state `error` until a sound plays again).
    public var error: String?
    /// Sounds played to their end since start.
    public var played: UInt64
    /// Whether the microphone has the echo canceller that keeps the speaker's sound out of it (`[speaker]
    /// echo_cancel`).
    public var echoCancel: Bool

    public init(
        state: State, speaker: String, playing: String? = nil, error: String? = nil, played: UInt64 = 0,
        echoCancel: Bool = false
    ) {
        (self.state, self.speaker, self.playing, self.error, self.played, self.echoCancel) = (
            state, speaker, playing, error, played, echoCancel
        )
    }
}

/// `speaker_played`: a sound ended, played to its end or cut short by the next one.
public struct SpeakerPlayback: Codable, Sendable, Equatable {
    public var sound: String
    /// How long it played.
    public var playedMs: Int
    public var interrupted: Bool

    public init(sound: String, playedMs: Int, interrupted: Bool) {
        (self.sound, self.playedMs, self.interrupted) = (sound, playedMs, interrupted)
    }
}

/// `speaker_failed`: the speaker could not play (its device is gone, busy, or its sink failed).
public struct SpeakerFailure: Codable, Sendable, Equatable {
    public var sound: String
    public var reason: String

    public init(sound: String, reason: String) { (self.sound, self.reason) = (sound, reason) }
}
