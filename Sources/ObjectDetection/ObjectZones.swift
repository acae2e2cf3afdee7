import MotionAndSound

/// Where tracked objects count (`[objects] zones`, names of `[motion] zones`): an object is in a zone when the
/// bottom centre of its box is (where a person stands, a car touches the road), not wherever its box reaches. No
/// zones: the whole picture.
public struct ObjectZones: Sendable, Equatable {
    public let areas: [RelativePolygon]

    public init(_ areas: [RelativePolygon]) { self.areas = areas }

    /// Whether `detection` (in the pixels of a `width` × `height` picture) counts.
    public func keeps(_ detection: ObjectDetection, width: Int, height: Int) -> Bool {
        guard !areas.isEmpty else { return true }
        guard width > 0, height > 0 else { return false }
        let x = (detection.x + detection.width / 2) / Double(width)
        let y = min(1, (detection.y + detection.height) / Double(height))
        return areas.contains { $0.contains(x: x, y: y) }
    }
}
