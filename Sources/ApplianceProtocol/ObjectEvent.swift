import Foundation

/// A box in the picture, in fractions of its width and height (0…1, from the top left).
public struct ObjectBox: Codable, Sendable, Equatable {
    public var x: Double, y: Double, width: Double, height: Double
    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }
}

/// A tracked object (`object_started`, `object_ended`): its label, the active camera, when it was first found (the
/// first run of those that confirmed it) and last found (`endedAt`; absent while it goes on), its best score and
/// where that detection was, and the channel whose picture it is in (absent: the first's).
public struct ObjectEvent: Codable, Sendable, Equatable {
    public var label: String
    public var camera: String?
    public var startedAt: Date
    public var endedAt: Date?
    public var score: Double
    public var box: ObjectBox
    public var channel: String?
    public init(
        label: String, camera: String?, startedAt: Date, endedAt: Date? = nil, score: Double, box: ObjectBox,
        channel: String? = nil
    ) {
        (self.label, self.camera, self.startedAt, self.endedAt, self.score, self.box) = (
            label, camera, startedAt, endedAt, score, box
        )
        self.channel = channel
    }
}
