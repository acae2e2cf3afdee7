/// The microphone's level (absent without sound): the latest RMS and peak of the loudest channel in dBFS (ten
/// readings a second; digital silence reads -120), and, with `[sound] enabled`, whether sound goes on and how many
/// sound events there were.
public struct SoundStatus: Codable, Sendable, Equatable {
    public var levelDb: Double?
    public var peakDb: Double?
    /// Whether sound detection runs (`[sound] enabled`); `active` and `events` say nothing without it.
    public var detecting: Bool
    public var active: Bool
    public var events: UInt64
    public init(levelDb: Double?, peakDb: Double?, detecting: Bool, active: Bool, events: UInt64) {
        (self.levelDb, self.peakDb, self.detecting, self.active, self.events) = (
            levelDb, peakDb, detecting, active, events
        )
    }
}
