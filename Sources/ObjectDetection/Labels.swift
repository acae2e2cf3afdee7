import Foundation

/// The names of a model's classes, by index: a labels file (one name a line, as TensorFlow and Darknet ship
/// them: `coco.names`), or COCO's 80 when none is given (what YOLOv5/YOLOX and SSD-MobileNet are trained on).
public enum Labels {
    /// COCO's 80 classes in the order the models number them (0-based; SSD's 1-based ids are these less one).
    public static let coco = [
        "person", "bicycle", "car", "motorcycle", "airplane", "bus", "train", "truck", "boat", "traffic light",
        "fire hydrant", "stop sign", "parking meter", "bench", "bird", "cat", "dog", "horse", "sheep", "cow",
        "elephant", "bear", "zebra", "giraffe", "backpack", "umbrella", "handbag", "tie", "suitcase", "frisbee",
        "skis", "snowboard", "sports ball", "kite", "baseball bat", "baseball glove", "skateboard", "surfboard",
        "tennis racket", "bottle", "wine glass", "cup", "fork", "knife", "spoon", "bowl", "banana", "apple",
        "sandwich", "orange", "broccoli", "carrot", "hot dog", "pizza", "donut", "cake", "chair", "couch",
        "potted plant", "bed", "dining table", "toilet", "tv", "laptop", "mouse", "remote", "keyboard", "cell phone",
        "microwave", "oven", "toaster", "sink", "refrigerator", "book", "clock", "vase", "scissors", "teddy bear",
        "hair drier", "toothbrush",
    ]

    /// A labels file's names: one a line, surrounding white space removed, blank lines and `#` comments skipped.
    public static func read(path: String) throws -> [String] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ObjectDetectorError("cannot read the labels file \(path): \((error as NSError).localizedDescription)")
        }
        let names = text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
        guard !names.isEmpty else { throw ObjectDetectorError("the labels file \(path) names no class") }
        return names
    }
}
