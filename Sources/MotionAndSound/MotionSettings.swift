/// What the motion detector counts as motion. The defaults follow what works for the field's tools on a normal scene
/// (Frigate: threshold 30 on a contrast-stretched frame ~100 px high, recalibrate when 80 % of it changes at once;
/// Blue Iris: 0.5 s of motion before a trigger).
public struct MotionSettings: Sendable, Equatable {
    /// A named area: motion there is reported with its name.
    public struct Zone: Sendable, Equatable {
        public let name: String
        public let area: RelativePolygon
        public init(name: String, area: RelativePolygon) { (self.name, self.area) = (name, area) }
    }

    /// How far a pixel of the normalised, blurred frame must move from the background to count as changed (0–255).
    public var threshold: Int = 30
    /// The smallest region of changed pixels that is motion, as a fraction of the watched picture.
    public var minArea: Double = 0.003
    /// How long motion must go on before it is an event (insects, a flash, a passing reflection are shorter).
    public var minDurationS: Double = 0.5
    /// How long without motion before an event ends.
    public var releaseS: Double = 2.0
    /// A run of motion frames survives a gap this long (a frame that saw too little of a moving thing).
    public var maxGapS: Double = 0.5
    /// When this fraction of the watched picture changes at once (a light, an IR switch, lightning, a camera switch)
    /// the background starts again from the new frame instead of firing.
    public var recalibrateRatio: Double = 0.8
    /// The weight of each new frame in the background (at 5 fps, 0.05 adapts in about 4 s).
    public var backgroundAlpha: Double = 0.05
    /// Where motion counts: inside any zone when there are zones (the whole picture otherwise), never in a mask.
    public var zones: [Zone] = []
    public var masks: [RelativePolygon] = []

    public init() {}
}
