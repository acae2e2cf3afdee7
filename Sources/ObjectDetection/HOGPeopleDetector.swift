import ApplianceBase
import CObjectDetection
import Foundation
import MotionAndSound

/// OpenCV's HOG people detector with the SVM OpenCV ships (the default when no model file is given: nothing to
/// download). Runs on the picture at its own size: upscaled, HOG finds "people" in foliage (measured on a tree in
/// the wind: 49 of 148 frames at 640 px wide, none at its own 320 px), and its 64x128 window finds people at least
/// that tall. `hitThreshold`: the SVM margin a window needs (0: OpenCV's default).
public final class HOGPeopleDetector: ObjectDetector, @unchecked Sendable {
    // @unchecked: the descriptor is only read after it is made (OpenCV's detectMultiScale is const), and `lock`
    // keeps one detection at a time anyway, so a second caller never races the first.
    private let hog: OpaquePointer
    private let lock = NSLock()
    public let hitThreshold: Double
    static let capacity = 64

    public init(hitThreshold: Double = 0) throws {
        guard let hog = appl_hog_new() else {
            throw ObjectDetectorError("OpenCV's HOG people detector could not be made")
        }
        (self.hog, self.hitThreshold) = (hog, hitThreshold)
    }

    deinit { appl_hog_free(hog) }

    public var window: (width: Int, height: Int) { (64, 128) }
    public var name: String { "OpenCV's HOG people detector" }

    public var wantsColour: Bool { false }

    public func detect(_ picture: Picture) throws -> [ObjectDetection] {
        let frame = picture.gray
        var found = [ApplDetection](repeating: ApplDetection(), count: Self.capacity)
        var error: UnsafeMutablePointer<CChar>?
        let count = lock.withLock {
            frame.pixels.withUnsafeBufferPointer { pixels in
                appl_hog_detect(
                    hog, pixels.baseAddress, Int32(frame.width), Int32(frame.height), Int32(frame.width), hitThreshold,
                    &found, Int32(Self.capacity), &error)
            }
        }
        guard count >= 0 else {
            let message = error.map { String(cString: $0) } ?? "OpenCV failed"
            free(error)
            throw ObjectDetectorError("HOG: \(message)")
        }
        return found.prefix(min(Int(count), Self.capacity)).map {
            ObjectDetection(
                label: "person", score: Double($0.score), x: Double($0.x), y: Double($0.y),
                width: Double($0.width), height: Double($0.height))
        }
    }
}
