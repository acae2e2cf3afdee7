/// Motion detection as a pure value: frames and their times go in, an observation per frame comes out. Each frame
/// is blurred and normalised (brightness and contrast taken out), compared with a slowly updated background, its
/// changed pixels cleaned of specks and thin lines, and the regions at least `minArea` large are the frame's motion.
/// Motion that lasts `minDurationS` is an event, which ends after `releaseS` without motion. When most of the picture
/// changes at once it is not motion but a new picture (a light, IR, lightning, a camera switch): the background
/// starts again from it.
public struct MotionDetector: Sendable {
    /// What one frame showed.
    public struct Observation: Sendable, Equatable {
        /// The part of the watched picture in motion regions (0…1).
        public let score: Double
        /// The zones a motion region touched (by name, in the settings' order).
        public let zones: [String]
        /// The frame replaced the background (too much changed at once, or the first frame of its size).
        public let recalibrated: Bool
        /// An event started or ended with this frame.
        public let transition: Transition?
        /// Where the motion regions are (their bounding boxes): where an object detector looks.
        public var boxes: [MotionBox] = []
    }

    public enum Transition: Sendable, Equatable {
        /// Motion has lasted long enough; it began at `at` (the first frame of the run).
        case started(at: Double)
        /// No motion since `at` (the last frame that had some), for `releaseS`.
        case ended(at: Double)
    }

    public let settings: MotionSettings
    /// Whether an event is going on.
    public private(set) var active = false
    private var background: [Float] = []
    /// The background shows no picture (a flat frame): the next frame that has one replaces it.
    private var backgroundFlat = false
    private var layout: WatchLayout?
    private var runStart: Double?
    private var lastMotion: Double?
    /// A frame without motion was seen since `lastMotion`: only such frames make a gap. Two frames in a row with
    /// motion continue a run however far apart they are (1 fps, or a slow board analysing fewer frames than asked).
    private var quietSinceMotion = false

    public init(settings: MotionSettings = MotionSettings()) { self.settings = settings }

    /// Looks at `frame`, taken at `time` (seconds, rising).
    public mutating func observe(_ frame: GrayFrame, at time: Double) -> Observation {
        if layout?.width != frame.width || layout?.height != frame.height {
            layout = WatchLayout(settings: settings, width: frame.width, height: frame.height)
            background = []
        }
        let layout = layout!
        let (current, flat) = ChangeMap.normalised(ChangeMap.blurred(frame), watched: layout.watched)
        // A picture after none (the camera's first frames after the black filler), or none after a picture (a
        // failed camera, a covered lens), is a new picture, not motion.
        guard background.count == current.count, layout.watchedCount > 0, flat == backgroundFlat else {
            (background, backgroundFlat) = (current, flat)
            runStart = nil
            return Observation(score: 0, zones: [], recalibrated: true, transition: release(at: time))
        }
        let changed = ChangeMap.changed(
            current, background: background, watched: layout.watched, threshold: settings.threshold)
        if Double(changed.lazy.filter { $0 }.count) > settings.recalibrateRatio * Double(layout.watchedCount) {
            background = current
            runStart = nil
            return Observation(score: 0, zones: [], recalibrated: true, transition: release(at: time))
        }
        let minimum = max(1, Int((settings.minArea * Double(layout.watchedCount)).rounded()))
        let moving = ChangeMap.regions(
            ChangeMap.opened(changed, width: frame.width, height: frame.height), width: frame.width,
            height: frame.height
        )
        .filter { $0.count >= minimum }
        let area = moving.reduce(0) { $0 + $1.count }
        let alpha = Float(settings.backgroundAlpha)
        for i in background.indices { background[i] += alpha * (current[i] - background[i]) }
        let zones = layout.zonesTouched(by: moving)
        let transition = area > 0 ? motion(at: time) : release(at: time)
        return Observation(
            score: Double(area) / Double(layout.watchedCount), zones: zones, recalibrated: false,
            transition: transition,
            boxes: moving.map { MotionBox(cells: $0, width: frame.width, height: frame.height) })
    }

    /// Forgets the background and any motion under way (the camera was switched: the next frame is a new picture).
    /// An event going on ends, at its last motion, and that is returned.
    @discardableResult
    public mutating func reset() -> Transition? {
        background = []
        runStart = nil
        defer { (active, lastMotion) = (false, nil) }
        guard active, let last = lastMotion else { return nil }
        return .ended(at: last)
    }

    /// A frame with motion: extends the run, or starts one; the event starts once the run is `minDurationS` long.
    /// A run breaks only where frames without motion span more than `maxGapS`, not where frames are sparse: at
    /// 1.3 frames a second (the lab's emulated CPU, asked for 5) a run broken by every gap over 0.5 s never fired.
    private mutating func motion(at time: Double) -> Transition? {
        if let last = lastMotion, quietSinceMotion, time - last > settings.maxGapS { runStart = nil }
        if runStart == nil { runStart = time }
        (lastMotion, quietSinceMotion) = (time, false)
        guard !active, let start = runStart, time - start >= settings.minDurationS else { return nil }
        active = true
        return .started(at: start)
    }

    /// A frame without motion: the run breaks after `maxGapS`, the event ends after `releaseS`.
    private mutating func release(at time: Double) -> Transition? {
        guard let last = lastMotion else { return nil }
        quietSinceMotion = true
        if time - last > settings.maxGapS { runStart = nil }
        guard active, time - last >= settings.releaseS else { return nil }
        active = false
        lastMotion = nil
        return .ended(at: last)
    }
}

/// Which pixels of a frame size are watched (inside a zone when there are zones, outside every mask), and each
/// zone's pixels: worked out once per size.
struct WatchLayout: Sendable {
    package let width: Int
    package let height: Int
    package let watched: [Bool]
    let watchedCount: Int
    package let zones: [(name: String, cells: [Bool])]

    package init(settings: MotionSettings, width: Int, height: Int) {
        (self.width, self.height) = (width, height)
        zones = settings.zones.map { ($0.name, $0.area.raster(width: width, height: height)) }
        let masks = settings.masks.map { $0.raster(width: width, height: height) }
        let zones = zones
        watched = (0..<(width * height)).map { i in
            (zones.isEmpty || zones.contains { $0.cells[i] }) && !masks.contains { $0[i] }
        }
        watchedCount = watched.lazy.filter { $0 }.count
    }

    func zonesTouched(by regions: [[Int]]) -> [String] {
        zones.filter { zone in regions.contains { $0.contains { zone.cells[$0] } } }.map(\.name)
    }
}
