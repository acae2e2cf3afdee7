import Detection

extension GrayFrame {
    /// The part of the picture inside `crop` (clamped to the picture), as a picture of its own.
    public func cropped(to crop: Crop) -> GrayFrame? {
        let left = max(0, min(width, crop.x)), top = max(0, min(height, crop.y))
        let w = min(width - left, crop.width), h = min(height - top, crop.height)
        guard w > 0, h > 0 else { return nil }
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for row in 0..<h {
                    let from = (top + row) * width + left
                    dst.baseAddress!.advanced(by: row * w).update(from: src.baseAddress!.advanced(by: from), count: w)
                }
            }
        }
        return GrayFrame(width: w, height: h, pixels: out)
    }
}
