import MotionAndSound

/// An object a detector found: its label (`person`, or a model's), its score (0–1 for a model; HOG's SVM margin for
/// the built-in people detector) and its box in the picture's pixels.
public struct ObjectDetection: Sendable, Equatable {
    public var label: String
    public var score: Double
    public var x: Double, y: Double, width: Double, height: Double

    public init(label: String, score: Double, x: Double, y: Double, width: Double, height: Double) {
        (self.label, self.score, self.x, self.y, self.width, self.height) = (label, score, x, y, width, height)
    }
}

/// Finds objects in one picture. Called off the streaming threads (it takes tens of milliseconds), one call at a time
/// per detector; a failure is an error, never a crash.
public protocol ObjectDetector: Sendable {
    func detect(_ picture: Picture) throws -> [ObjectDetection]
    /// Whether it looks at colour (a trained model) or gray (HOG): the objects branch delivers that.
    var wantsColour: Bool { get }
    /// The smallest picture worth giving it (HOG's window; a model's input): crops grow to at least this.
    var window: (width: Int, height: Int) { get }
    /// What it is, for the log and status ("HOG people detector", "model yolo.onnx").
    var name: String { get }
}

extension ObjectDetector {
    /// A gray frame (the motion branch's kind).
    public func detect(_ frame: GrayFrame) throws -> [ObjectDetection] { try detect(Picture(frame)) }
}

/// What a detector could not do, as one line.
public struct ObjectDetectorError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
