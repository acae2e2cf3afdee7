import CObjectDetection
import Foundation
import MotionAndSound

/// A user's model run by OpenCV's DNN module: `model` (ONNX, TensorFlow `.pb` with its `.pbtxt` as `config`,
/// Darknet `.weights` with its `.cfg`), its output read as `output` says, `labels` by class index.
public final class DNNDetector: ObjectDetector, @unchecked Sendable {
    // @unchecked: OpenCV's Net is not safe to run from two threads at once; `lock` runs one forward pass at a time.
    private let dnn: OpaquePointer
    private let lock = NSLock()
    public struct Settings: Sendable {
        public var output: ModelOutput
        public var labels: [String]
        public var inputWidth: Int, inputHeight: Int
        /// What each pixel (0–255) is multiplied by before the network sees it (1/255 for most).
        public var scale: Double
        public var minScore: Double
        public var maxOverlap: Double

        public init(
            output: ModelOutput, labels: [String], inputWidth: Int, inputHeight: Int, scale: Double = 1 / 255,
            minScore: Double = 0.5, maxOverlap: Double = 0.45
        ) {
            (self.output, self.labels, self.inputWidth, self.inputHeight) = (output, labels, inputWidth, inputHeight)
            (self.scale, self.minScore, self.maxOverlap) = (scale, minScore, maxOverlap)
        }
    }
    public let settings: Settings
    private let modelName: String

    /// Loads the model: a missing, unreadable or foreign file is one line.
    public init(model: String, config: String? = nil, settings: Settings) throws {
        guard FileManager.default.isReadableFile(atPath: model) else {
            throw ObjectDetectorError("cannot read the model \(model)")
        }
        var error: UnsafeMutablePointer<CChar>?
        guard let dnn = appl_dnn_load(model, config, &error) else {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            free(error)
            throw ObjectDetectorError("OpenCV cannot load the model \(model): \(Self.firstLine(message))")
        }
        (self.dnn, self.settings, self.modelName) = (dnn, settings, (model as NSString).lastPathComponent)
    }

    deinit { appl_dnn_free(dnn) }

    public var window: (width: Int, height: Int) { (settings.inputWidth, settings.inputHeight) }
    public var name: String { "model \(modelName)" }

    public var wantsColour: Bool { true }

    public func detect(_ frame: Picture) throws -> [ObjectDetection] {
        var values: UnsafeMutablePointer<Float>?
        var shape = [Int32](repeating: 0, count: 8)
        var dims: Int32 = 0
        var error: UnsafeMutablePointer<CChar>?
        let status = lock.withLock {
            frame.pixels.withUnsafeBufferPointer { pixels in
                appl_dnn_forward(
                    dnn, pixels.baseAddress, Int32(frame.width), Int32(frame.height), Int32(frame.channels),
                    Int32(frame.width * frame.channels),
                    Int32(settings.inputWidth), Int32(settings.inputHeight), settings.scale, &values, &shape, &dims,
                    &error)
            }
        }
        defer { free(values) }
        guard status == 0, let values else {
            let message = error.map { String(cString: $0) } ?? "unknown error"
            free(error)
            throw ObjectDetectorError("the model failed: \(Self.firstLine(message))")
        }
        let sizes = shape.prefix(Int(dims)).map(Int.init)
        let output = Array(UnsafeBufferPointer(start: values, count: sizes.reduce(1, *)))
        let found = settings.output.decode(
            output, shape: sizes, labels: settings.labels, inputWidth: settings.inputWidth,
            inputHeight: settings.inputHeight, frameWidth: frame.width, frameHeight: frame.height,
            minScore: settings.minScore)
        return NonMaximumSuppression.apply(found, maxOverlap: settings.maxOverlap)
    }

    /// OpenCV's messages span lines (file, function, then the reason): the reason, on one.
    static func firstLine(_ message: String) -> String {
        message.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.last
            ?? message
    }
}
