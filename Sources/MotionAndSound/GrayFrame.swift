/// A small gray picture, as the motion branch's appsink hands it over: `width` × `height` luma bytes, row after row.
public struct GrayFrame: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public var pixels: [UInt8]

    /// nil when `pixels` does not hold exactly `width` × `height` bytes, or the size is empty.
    public init?(width: Int, height: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, pixels.count == width * height else { return nil }
        (self.width, self.height, self.pixels) = (width, height, pixels)
    }

    /// A frame of one gray level.
    public init(width: Int, height: Int, level: UInt8) {
        precondition(width > 0 && height > 0)
        (self.width, self.height, self.pixels) = (width, height, [UInt8](repeating: level, count: width * height))
    }

    public subscript(x: Int, y: Int) -> UInt8 {
        get { pixels[y * width + x] }
        set { pixels[y * width + x] = newValue }
    }
}
