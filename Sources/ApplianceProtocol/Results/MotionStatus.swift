/// Motion detection (absent when `[motion] enabled` is off): the frames it looks at, whether motion goes on now, the
/// latest frame's score (the part of the watched picture in motion, 0–1), and how many frames and events so far.
public struct MotionStatus: Codable, Sendable, Equatable {
    public var active: Bool
    public var score: Double
    public var fps: Int
    public var width: Int
    public var height: Int
    public var framesAnalysed: UInt64
    public var events: UInt64
    public init(active: Bool, score: Double, fps: Int, width: Int, height: Int, framesAnalysed: UInt64, events: UInt64)
    {
        (self.active, self.score, self.fps, self.width, self.height) = (active, score, fps, width, height)
        (self.framesAnalysed, self.events) = (framesAnalysed, events)
    }
}
