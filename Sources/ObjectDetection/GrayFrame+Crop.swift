import MotionAndSound

extension GrayFrame {
    /// The part of the picture inside `crop` (clamped to the picture), as a picture of its own.
    public func cropped(to crop: Crop) -> GrayFrame? {
        Picture(self).cropped(to: crop).map(\.gray)
    }
}
