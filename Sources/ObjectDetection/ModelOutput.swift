/// How a model's first output lists what it found, and how to read it into detections in the frame's pixels.
public enum ModelOutput: String, Sendable, CaseIterable {
    /// YOLOv5/YOLOX style: `[1, N, 5 + classes]`, each row centre x, centre y, width, height (in the model's input
    /// pixels), objectness, then one score per class; a detection's score is objectness × its best class score.
    case yolo
    /// TensorFlow SSD style: `[1, 1, N, 7]`, each row image, class id (COCO's 1-based ids: 0 is background), score,
    /// then the corners x1, y1, x2, y2 as fractions of the picture.
    case ssd
    /// Darknet YOLO through OpenCV (its `[yolo]`/`[region]` layers): `[N, 5 + classes]`, each row centre x, centre y,
    /// width, height as fractions of the picture, objectness, then one score per class already weighed by it (as
    /// OpenCV's own object_detection sample reads them).
    case darknet

    /// The detections above `minScore` in a picture of `frameWidth` x `frameHeight` that was given to the model at
    /// `inputWidth` x `inputHeight`. Rows that do not fit the format (a wrong shape, NaN, a class past the labels) are
    /// skipped: a model that outputs garbage yields nothing, never a crash.
    public func decode(
        _ values: [Float], shape: [Int], labels: [String], inputWidth: Int, inputHeight: Int,
        frameWidth: Int, frameHeight: Int, minScore: Double
    ) -> [ObjectDetection] {
        guard let last = shape.last, last > 0, values.count == shape.reduce(1, *) else { return [] }
        let rows = values.count / last
        var found: [ObjectDetection] = []
        for row in 0..<rows {
            let r = Array(values[row * last..<(row + 1) * last]).map(Double.init)
            guard r.allSatisfy(\.isFinite),
                let detection = self.detection(
                    r, labels: labels, inputWidth: inputWidth,
                    inputHeight: inputHeight, frameWidth: frameWidth,
                    frameHeight: frameHeight)
            else { continue }
            if detection.score >= minScore { found.append(detection) }
        }
        return found
    }

    private func detection(
        _ r: [Double], labels: [String], inputWidth: Int, inputHeight: Int, frameWidth: Int,
        frameHeight: Int
    ) -> ObjectDetection? {
        switch self {
        case .yolo:
            guard r.count > 5 else { return nil }
            let classes = r[5...]
            guard let best = classes.indices.max(by: { classes[$0] < classes[$1] }), best - 5 < labels.count else {
                return nil
            }
            let sx = Double(frameWidth) / Double(inputWidth)
            let sy = Double(frameHeight) / Double(inputHeight)
            let (w, h) = (r[2] * sx, r[3] * sy)
            return ObjectDetection(
                label: labels[best - 5], score: r[4] * classes[best], x: r[0] * sx - w / 2, y: r[1] * sy - h / 2,
                width: w, height: h)
        case .darknet:
            guard r.count > 5 else { return nil }
            let classes = r[5...]
            guard let best = classes.indices.max(by: { classes[$0] < classes[$1] }), best - 5 < labels.count else {
                return nil
            }
            let (fw, fh) = (Double(frameWidth), Double(frameHeight))
            let (w, h) = (r[2] * fw, r[3] * fh)
            return ObjectDetection(
                label: labels[best - 5], score: classes[best], x: r[0] * fw - w / 2, y: r[1] * fh - h / 2, width: w,
                height: h)
        case .ssd:
            guard r.count == 7, r[1] >= 1, Int(r[1]) - 1 < labels.count else { return nil }
            let (fw, fh) = (Double(frameWidth), Double(frameHeight))
            return ObjectDetection(
                label: labels[Int(r[1]) - 1], score: r[2], x: r[3] * fw, y: r[4] * fh,
                width: (r[5] - r[3]) * fw, height: (r[6] - r[4]) * fh)
        }
    }
}

/// Keeps the best of detections of one label that overlap by more than `maxOverlap` (intersection over union).
public enum NonMaximumSuppression {
    public static func apply(_ detections: [ObjectDetection], maxOverlap: Double) -> [ObjectDetection] {
        var kept: [ObjectDetection] = []
        for candidate in detections.sorted(by: { $0.score > $1.score })
        where candidate.width > 0 && candidate.height > 0 {
            if !kept.contains(where: { $0.label == candidate.label && overlap($0, candidate) > maxOverlap }) {
                kept.append(candidate)
            }
        }
        return kept
    }

    static func overlap(_ a: ObjectDetection, _ b: ObjectDetection) -> Double {
        let w = max(0, min(a.x + a.width, b.x + b.width) - max(a.x, b.x))
        let h = max(0, min(a.y + a.height, b.y + b.height) - max(a.y, b.y))
        let inter = w * h
        let union = a.width * a.height + b.width * b.height - inter
        return union > 0 ? inter / union : 0
    }
}
