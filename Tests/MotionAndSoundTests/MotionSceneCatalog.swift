import ApplianceBase
import Foundation
import TestSupport

@testable import MotionAndSound

/// A generated scene and what really happens in it: the spans of real motion (empty for a scene that must make no
/// event). `make` builds the scene for a seed: positions, speeds and noise vary with it.
struct GroundTruthScene: Sendable {
    let name: String
    var settings = MotionSettings()
    /// Each real motion's start and end (seconds), in the order they happen.
    let truth: @Sendable (UInt64) -> [ClosedRange<Double>]
    let make: @Sendable (UInt64) -> MotionScene
}

/// The scenes the detector is judged on (MotionDetectorTests, MotionQualityTests and the quality table in
/// docs/BENCHMARKS.md): what a driveway or a dashcam sees, and the usual false alarms.
enum MotionSceneCatalog {
    /// A value in `range` picked by `seed` (the same seed, the same value).
    static func pick(_ range: ClosedRange<Double>, _ seed: UInt64, salt: UInt64) -> Double {
        var random = SeededRandom(seed: seed &* 31 &+ salt)
        return range.lowerBound + (range.upperBound - range.lowerBound) * Double(random.next() >> 11) / Double(1 << 53)
    }

    /// A car-sized dark block crossing the 320-wide picture from t = 2 s (60–80 px/s, at a height the seed picks).
    static let crossing = GroundTruthScene(
        name: "a car crossing the picture",
        truth: { seed in
            [2...(2 + 360 / pick(60...80, seed, salt: 1))]
        },
        make: { seed in
            let (speed, y) = (pick(60...80, seed, salt: 1), pick(90...140, seed, salt: 2))
            return MotionScene(seconds: 12, seed: seed) { canvas, t, _ in
                guard t >= 2 else { return }
                canvas.fill(x: -40 + (t - 2) * speed, y: y, w: 40, h: 24, level: 15)
            }
        })

    /// A person-sized blob walking right at 40 px/s; the zone is the right half, which it enters at
    /// t = (160 - 30) / 40 = 3.25 s. Motion outside the zone does not count.
    static let intoZone: GroundTruthScene = {
        var settings = MotionSettings()
        settings.zones = [
            MotionSettings.Zone(
                name: "door", area: RelativePolygon([.init(0.5, 0), .init(1, 0), .init(1, 1), .init(0.5, 1)])!)
        ]
        return GroundTruthScene(
            name: "a person entering a zone", settings: settings, truth: { _ in [3.25...8] },
            make: { seed in
                let y = pick(40...120, seed, salt: 3)
                return MotionScene(seconds: 8, seed: seed) { canvas, t, _ in
                    canvas.fill(x: 20 + t * 40, y: y, w: 10, h: 24, level: 20)
                }
            })
    }()

    /// A person walking slowly (12–18 px/s) in from the left edge at t = 2 s.
    static let slowWalker = GroundTruthScene(
        name: "a person walking in slowly", truth: { _ in [2...14] },
        make: { seed in
            let (speed, y) = (pick(12...18, seed, salt: 4), pick(40...120, seed, salt: 5))
            return MotionScene(seconds: 14, seed: seed) { canvas, t, _ in
                guard t >= 2 else { return }
                canvas.fill(x: -12 + (t - 2) * speed, y: y, w: 12, h: 30, level: 25)
            }
        })

    /// Two cars, 6 s apart: two events.
    static let twoCars = GroundTruthScene(
        name: "two cars 6 s apart", truth: { _ in [2...6.5, 12.5...17] },
        make: { seed in
            MotionScene(seconds: 18, seed: seed) { canvas, t, _ in
                for start in [2.0, 12.5] where t >= start {
                    canvas.fill(x: -40 + (t - start) * 80, y: 110, w: 40, h: 24, level: 15)
                }
            }
        })

    static let real = [crossing, intoZone, slowWalker, twoCars]

    /// Scenes without real motion: each must make no event.
    static let quiet: [GroundTruthScene] = [
        still("a light switched on (the brightest blocks clip)") { canvas, t, _ in
            if t >= 4 { canvas.light(gain: 1.3, offset: 10) }
        },
        still("a light switched off") { canvas, t, _ in if t >= 4 { canvas.light(gain: 0.6) } },
        still("slow dusk", seconds: 20) { canvas, t, _ in canvas.light(gain: Float(1 - 0.035 * t)) },
        still("sensor noise") { canvas, _, random in MotionScene.noise(&canvas, sigma: 8, &random) },
        still("rain") { canvas, _, random in
            for _ in 0..<60 {
                canvas.fill(x: Double(random.next() % 320), y: Double(random.next() % 180), w: 1, h: 6, level: 250)
            }
        },
        still("a 0.2 s flash") { canvas, t, _ in if t >= 5, t < 5.2 { canvas.light(gain: 0.3, offset: 200) } },
        // ±1 pixel at 320 wide is ±4 on a 1280-wide camera.
        still("a shaking camera (±4 px at 1280)") { canvas, _, random in
            canvas.shift(dx: Int(random.next() % 3) - 1, dy: Int(random.next() % 3) - 1)
        },
        {
            var masked = still("motion inside a mask") { canvas, t, _ in
                canvas.fill(x: 10 + t * 10, y: 30, w: 30, h: 30, level: 10)
            }
            masked.settings.masks = [RelativePolygon([.init(0, 0), .init(0.5, 0), .init(0.5, 0.5), .init(0, 0.5)])!]
            return masked
        }(),
        still("an insect at the lens for 0.2 s") { canvas, t, _ in
            if t >= 3, t < 3.2 { canvas.fill(x: 100, y: 60, w: 30, h: 30, level: 5) }
        },
    ]

    static func still(
        _ name: String, seconds: Double = 10,
        _ paint: @escaping @Sendable (inout Canvas, Double, inout SeededRandom) -> Void
    ) -> GroundTruthScene {
        GroundTruthScene(
            name: name, truth: { _ in [] }, make: { seed in MotionScene(seconds: seconds, seed: seed, paint: paint) })
    }
}

/// How the detector did on scenes with known motion: events found (a start within `tolerance` before the real
/// start and no later than its end), missed and false, and how late each found start was.
struct DetectionTally {
    static let tolerance = 0.5
    var runs = 0
    var real = 0
    var found = 0
    var missed = 0
    var falseEvents = 0
    var startErrors: [Double] = []

    mutating func add(truth: [ClosedRange<Double>], starts: [Double]) {
        runs += 1
        real += truth.count
        var unmatched = starts
        for span in truth {
            if let i = unmatched.firstIndex(where: { $0 >= span.lowerBound - Self.tolerance && $0 <= span.upperBound })
            {
                found += 1
                startErrors.append(unmatched.remove(at: i) - span.lowerBound)
            } else {
                missed += 1
            }
        }
        falseEvents += unmatched.count
    }

    var worstStartError: Double? { startErrors.map(abs).max() }
    var meanStartError: Double? { startErrors.isEmpty ? nil : startErrors.reduce(0, +) / Double(startErrors.count) }
}
