/// A box in the picture, in fractions of its width and height (0…1, from the top left): a motion region's bounds, or
/// an object's.
public struct MotionBox: Sendable, Equatable, Codable {
    public var x: Double, y: Double, width: Double, height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        (self.x, self.y, self.width, self.height) = (x, y, width, height)
    }

    /// The bounds of a region's cells (indices into a `width` × `height` raster).
    init(cells: [Int], width: Int, height: Int) {
        var (left, top, right, bottom) = (width, height, -1, -1)
        for i in cells {
            let (x, y) = (i % width, i / width)
            (left, top, right, bottom) = (min(left, x), min(top, y), max(right, x), max(bottom, y))
        }
        guard right >= left, bottom >= top else {
            self.init(x: 0, y: 0, width: 0, height: 0)
            return
        }
        self.init(
            x: Double(left) / Double(width), y: Double(top) / Double(height),
            width: Double(right - left + 1) / Double(width), height: Double(bottom - top + 1) / Double(height))
    }
}
