import MotionAndSound

/// A picture a detector looks at: gray (one byte a pixel) or colour (three, in OpenCV's B, G, R order), row after
/// row with no padding. Trained models see colour; HOG sees gray.
public struct Picture: Sendable, Equatable {
    public let width: Int
    public let height: Int
    public let channels: Int
    public let pixels: [UInt8]

    /// nil when `pixels` does not hold exactly `width` × `height` × `channels` bytes (1 or 3 channels).
    public init?(width: Int, height: Int, channels: Int, pixels: [UInt8]) {
        guard width > 0, height > 0, channels == 1 || channels == 3, pixels.count == width * height * channels else {
            return nil
        }
        (self.width, self.height, self.channels, self.pixels) = (width, height, channels, pixels)
    }

    public init(_ frame: GrayFrame) {
        (width, height, channels, pixels) = (frame.width, frame.height, 1, frame.pixels)
    }

    /// A picture from an appsink's buffer, whose rows may be padded to four bytes (GStreamer's raw video stride).
    public init?(width: Int, height: Int, channels: Int, buffer: [UInt8]) {
        let row = width * channels
        let stride = (row + 3) & ~3
        if buffer.count == row * height {
            self.init(width: width, height: height, channels: channels, pixels: buffer)
        } else if buffer.count == stride * height {
            var packed = [UInt8](repeating: 0, count: row * height)
            for y in 0..<height { packed[y * row..<(y + 1) * row] = buffer[y * stride..<y * stride + row] }
            self.init(width: width, height: height, channels: channels, pixels: packed)
        } else {
            return nil
        }
    }

    /// The gray picture (luma from B, G, R as OpenCV weighs them), or this one if it is gray.
    public var gray: GrayFrame {
        guard channels == 3 else { return GrayFrame(width: width, height: height, pixels: pixels)! }
        var out = [UInt8](repeating: 0, count: width * height)
        pixels.withUnsafeBufferPointer { p in
            for i in 0..<(width * height) {
                let (b, g, r) = (UInt32(p[3 * i]), UInt32(p[3 * i + 1]), UInt32(p[3 * i + 2]))
                out[i] = UInt8((b * 1868 + g * 9617 + r * 4899 + 8192) >> 14)
            }
        }
        return GrayFrame(width: width, height: height, pixels: out)!
    }

    /// The part of the picture inside `crop` (clamped to the picture), as a picture of its own.
    public func cropped(to crop: Crop) -> Picture? {
        let left = max(0, min(width, crop.x))
        let top = max(0, min(height, crop.y))
        let w = min(width - left, crop.width)
        let h = min(height - top, crop.height)
        guard w > 0, h > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: w * h * channels)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for row in 0..<h {
                    let from = ((top + row) * width + left) * channels
                    dst.baseAddress!.advanced(by: row * w * channels).update(
                        from: src.baseAddress!.advanced(by: from), count: w * channels)
                }
            }
        }
        return Picture(width: w, height: h, channels: channels, pixels: out)
    }
}
