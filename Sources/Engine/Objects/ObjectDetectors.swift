import ObjectDetection
import Settings

/// The detector `[objects]` asks for: the user's model through OpenCV's DNN module, or, with none, OpenCV's built-in
/// HOG people detector. A missing, unreadable or foreign file is one error line (`ObjectDetectorError`).
package enum ObjectDetectors {
    package static func make(_ o: ApplianceConfig.Objects) throws -> any ObjectDetector {
        guard !o.model.isEmpty else { return try HOGPeopleDetector() }
        let labels = o.labels.isEmpty ? Labels.coco : try Labels.read(path: o.labels)
        let settings = DNNDetector.Settings(
            output: ModelOutput(rawValue: o.output) ?? .yolo, labels: labels, inputWidth: o.inputWidth,
            inputHeight: o.inputHeight, minScore: o.minScore, maxOverlap: o.nms)
        return try DNNDetector(model: o.model, config: o.modelConfig.isEmpty ? nil : o.modelConfig, settings: settings)
    }

    /// How detections become objects.
    package static func tracker(_ o: ApplianceConfig.Objects) -> ObjectTracker.Settings {
        ObjectTracker.Settings(minScore: o.minScore, threshold: o.threshold, releaseS: o.releaseS)
    }
}
