/// A polygon over the picture in relative coordinates (0 at the left and top, 1 at the right and bottom), so a
/// zone or a mask keeps its place whatever size the detector's frames are. At least three points; the edges join
/// them in order and the last to the first.
public struct RelativePolygon: Sendable, Equatable {
    public struct Point: Sendable, Equatable {
        public let x: Double
        public let y: Double
        public init(_ x: Double, _ y: Double) { (self.x, self.y) = (x, y) }
    }

    public let points: [Point]

    /// nil with fewer than three points or a coordinate outside 0…1.
    public init?(_ points: [Point]) {
        guard points.count >= 3, points.allSatisfy({ (0...1).contains($0.x) && (0...1).contains($0.y) }) else {
            return nil
        }
        self.points = points
    }

    /// The whole picture.
    public static let whole = RelativePolygon([Point(0, 0), Point(1, 0), Point(1, 1), Point(0, 1)])!

    /// Whether the point (relative coordinates) is inside (even-odd rule).
    public func contains(x: Double, y: Double) -> Bool {
        var inside = false
        var j = points.count - 1
        for i in points.indices {
            let (a, b) = (points[i], points[j])
            if (a.y > y) != (b.y > y), x < (b.x - a.x) * (y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }

    /// For each pixel of a `width` × `height` frame, row after row, whether its centre is inside.
    public func raster(width: Int, height: Int) -> [Bool] {
        var cells = [Bool](repeating: false, count: width * height)
        for y in 0..<height {
            let ry = (Double(y) + 0.5) / Double(height)
            for x in 0..<width where contains(x: (Double(x) + 0.5) / Double(width), y: ry) {
                cells[y * width + x] = true
            }
        }
        return cells
    }
}
