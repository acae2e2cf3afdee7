import MotionAndSound
import TOMLKit

extension ApplianceConfig {
    /// `[motion]`: motion detection on the live picture (after the camera selector, so it follows the active camera).
    public struct Motion: Sendable, Equatable {
        public var enabled = false
        /// Frames looked at each second.
        public var fps = 5
        /// Width of the gray frames it looks at (the height follows the picture's shape); a multiple of 4.
        public var width = 160
        public var threshold = 30
        public var minArea = 0.003
        public var minDurationS = 0.5
        public var zones: [MotionSettings.Zone] = []
        public var masks: [RelativePolygon] = []

        /// The gray frames' height for a `videoWidth` × `videoHeight` picture: the same shape, even.
        public func height(videoWidth: Int, videoHeight: Int) -> Int {
            max(2, Int((Double(width) * Double(videoHeight) / Double(videoWidth) / 2).rounded()) * 2)
        }

        /// What the detector is given.
        public var settings: MotionSettings {
            var s = MotionSettings()
            s.threshold = threshold
            s.minArea = minArea
            s.minDurationS = minDurationS
            s.zones = zones
            s.masks = masks
            return s
        }
    }
}

extension ConfigSections {
    /// [motion]; `zones` is an array of `{ name = "…", points = [[x, y], …] }`, `masks` an array of point arrays.
    package static func motion(_ t: inout TableReader, _ defaults: ApplianceConfig.Motion) throws
        -> ApplianceConfig.Motion
    {
        var m = defaults
        m.enabled = try t.bool("enabled", m.enabled)
        m.fps = try t.int("fps", m.fps, 1...30)
        m.width = try t.int("width", m.width, 32...640)
        m.threshold = try t.int("threshold", m.threshold, 1...254)
        m.minArea = try t.double("min_area", m.minArea, 0...1)
        m.minDurationS = try t.double("min_duration_s", m.minDurationS, 0...60)
        if m.width % 4 != 0 { throw t.error("width", "must be a multiple of 4, found \(m.width)") }
        if let masks = try t.array("masks") {
            m.masks = try masks.enumerated().map { index, mask in
                try t.polygon(mask, key: "masks", what: "masks[\(index)]")
            }
        }
        if let zones = try t.array("zones") {
            var names = Set<String>()
            m.zones = try zones.enumerated().map { index, zone in
                guard let table = zone.table, let name = table["name"]?.string, !name.isEmpty,
                    let points = table["points"],
                    table.keys.allSatisfy({ ["name", "points"].contains($0) })
                else {
                    throw t.error("zones", "zones[\(index)] must be { name = \"…\", points = [[x, y], …] }")
                }
                guard names.insert(name).inserted else { throw t.error("zones", "duplicate zone name '\(name)'") }
                return MotionSettings.Zone(
                    name: name, area: try t.polygon(points, key: "zones", what: "zones[\(index)].points"))
            }
        }
        try t.finish()
        return m
    }
}

extension ApplianceConfig {
    /// `[sound]`: sound detection on the microphone's level (the level itself is measured whenever there is sound).
    public struct Sound: Sendable, Equatable {
        public var enabled = false
        public var thresholdDb = -30.0
        public var minDurationS = 0.5

        /// What the detector is given.
        public var settings: SoundDetector.Settings {
            var s = SoundDetector.Settings()
            s.thresholdDb = thresholdDb
            s.minDurationS = minDurationS
            return s
        }
    }
}

extension ConfigSections {
    /// [sound]
    package static func sound(_ t: inout TableReader, _ defaults: ApplianceConfig.Sound) throws -> ApplianceConfig.Sound
    {
        var s = defaults
        s.enabled = try t.bool("enabled", s.enabled)
        s.thresholdDb = try t.double("threshold_db", s.thresholdDb, -100...0)
        s.minDurationS = try t.double("min_duration_s", s.minDurationS, 0...60)
        try t.finish()
        return s
    }
}
