import Engine
import Foundation
import MotionAndSound
import ObjectDetection
import Settings

/// Check: object detection, when `[objects] enabled`: the detector can be made (the model file loads, the labels file
/// reads), and what one run costs at its worst (motion over the whole picture: one crop the picture's size).
enum ObjectsCheck {
    static let name = "objects"

    static func run(_ config: ApplianceConfig) -> DoctorCheck {
        let o = config.objects
        guard o.enabled else { return .pass(name, "off ([objects] enabled = false)") }
        let detector: any ObjectDetector
        do {
            detector = try ObjectDetectors.make(o)
        } catch {
            return .fail(
                name, "\(error)",
                fix: "set [objects] model to a readable ONNX, TensorFlow .pb or Darknet .weights file "
                    + """
                    (labels to its class names), or leave it empty for the built-in people detector; the daemon \
                    runs on motion alone meanwhile
                    """
            )
        }
        let size = o.size(videoWidth: config.video.width, videoHeight: config.video.height)
        let frame = Picture(
            width: size.width, height: size.height, channels: detector.wantsColour ? 3 : 1,
            pixels: [UInt8](repeating: 128, count: size.width * size.height * (detector.wantsColour ? 3 : 1)))!
        let start = ContinuousClock.now
        do {
            _ = try detector.detect(frame)
        } catch {
            return .fail(
                name, "\(detector.name) failed on a \(size.width)x\(size.height) picture: \(error)",
                fix: "check [objects] input_width, input_height and output against the model")
        }
        let ms = (ContinuousClock.now - start) / .milliseconds(1)
        let fps = min(o.fps, config.video.framerate)
        let detail =
            """
            on: \(detector.name), at most \(fps) runs a second while there is motion, tracking \
            \(o.track.joined(separator: ", ")); 
            """
            + String(
                format: "%.0f ms for the whole %dx%d picture (the worst case: motion everywhere)", ms, size.width,
                size.height)
        if ms * Double(fps) > 1000 {
            return .warn(
                name, detail,
                fix: "runs take longer than 1/fps: frames will be skipped (counted); lower [objects] width or fps")
        }
        return .pass(name, detail)
    }
}
