import TOMLKit

extension ApplianceConfig {
    /// `[objects]`: what moved, told apart (person, car, dog…), looked for only where motion is and only while it is.
    public struct Objects: Sendable, Equatable {
        public var enabled = false
        /// Detector runs each second at most (a run looks at every crop around the frame's motion); a run that would
        /// start while one goes on is skipped and counted, never queued.
        public var fps = 5
        /// The share of one core the detector may use (0.25: a quarter), measured as each run's CPU time: after a
        /// run it rests three times as long as the run took, so its rate falls below `fps` before it exceeds the
        /// budget. 0: no budget (only `fps`).
        public var cpuBudget = 0.25
        /// Width of the gray picture crops are cut from (the height follows the picture's shape); 0: the picture's own
        /// size. HOG is never given an upscaled picture (foliage becomes "people").
        public var width = 0
        /// A model file for OpenCV's DNN module (ONNX, TensorFlow `.pb`, Darknet `.weights`); empty: OpenCV's built-in
        /// HOG people detector (label `person`, no file).
        public var model = ""
        /// The model's second file where its format has one (TensorFlow `.pbtxt`, Darknet `.cfg`).
        public var modelConfig = ""
        /// One class name a line, in the model's order; empty: COCO's 80.
        public var labels = ""
        /// How the model's output reads: "yolo" (YOLOv5/YOLOX rows), "ssd" (TensorFlow SSD rows) or "darknet" (Darknet
        /// YOLO rows through OpenCV: boxes in fractions).
        public var output = "yolo"
        public var inputWidth = 320
        public var inputHeight = 320
        /// A detection counts at this score or above (a model's 0–1; HOG's SVM margin for the built-in detector).
        public var minScore = 0.5
        /// An object starts when the lower median of its best scores over its recent runs reaches this.
        public var threshold = 0.7
        /// Boxes of one label overlapping more than this (intersection over union) are one object.
        public var nms = 0.45
        /// The labels that make events (`object_started`); others are ignored.
        public var track = ["person"]
        /// An object ends this long after its last detection.
        public var releaseS = 5.0
        /// Where tracked objects count: names of `[motion] zones` (the bottom centre of the box inside one); empty:
        /// the whole picture.
        public var zones: [String] = []

        /// The gray picture's size for a `videoWidth` × `videoHeight` picture.
        public func size(videoWidth: Int, videoHeight: Int) -> (width: Int, height: Int) {
            guard width > 0, width < videoWidth else { return (videoWidth, videoHeight) }
            return (width, max(2, Int((Double(width) * Double(videoHeight) / Double(videoWidth) / 2).rounded()) * 2))
        }
    }
}

extension ConfigSections {
    /// [objects]
    package static func objects(_ t: inout TableReader, _ defaults: ApplianceConfig.Objects) throws
        -> ApplianceConfig.Objects
    {
        var o = defaults
        o.enabled = try t.bool("enabled", o.enabled)
        o.fps = try t.int("fps", o.fps, 1...30)
        o.width = try t.int("width", o.width, 0...7680)
        if o.width != 0, o.width < 64 || o.width % 2 != 0 {
            throw t.error("width", "must be 0 (the picture's own) or an even width of 64 or more, found \(o.width)")
        }
        o.cpuBudget = try t.double("cpu_budget", o.cpuBudget, 0...1)
        o.model = try t.string("model", o.model)
        o.modelConfig = try t.string("model_config", o.modelConfig)
        o.labels = try t.string("labels", o.labels)
        o.output = try t.oneOf("output", o.output, ["yolo", "ssd", "darknet"])
        o.inputWidth = try t.int("input_width", o.inputWidth, 16...4096)
        o.inputHeight = try t.int("input_height", o.inputHeight, 16...4096)
        o.minScore = try t.double("min_score", o.minScore, 0...100)
        o.threshold = try t.double("threshold", o.threshold, 0...100)
        o.nms = try t.double("nms", o.nms, 0...1)
        o.releaseS = try t.double("release_s", o.releaseS, 0...600)
        if let zones = try t.array("zones") {
            o.zones = try zones.map { value in
                guard let name = value.string, !name.isEmpty else {
                    throw t.error("zones", "must be an array of [motion] zone names")
                }
                return name
            }
        }
        if let track = try t.array("track") {
            o.track = try track.map { value in
                guard let label = value.string, !label.isEmpty, label.count <= 64, !label.contains("+") else {
                    throw t.error("track", "must be an array of label names, e.g. [\"person\", \"car\"]")
                }
                return label
            }
        }
        if o.modelConfig != "", o.model == "" { throw t.error("model_config", "needs a model") }
        try t.finish()
        return o
    }
}
