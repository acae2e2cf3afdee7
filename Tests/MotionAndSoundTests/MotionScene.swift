import ApplianceBase
import Foundation
import TestSupport

@testable import MotionAndSound

/// A picture being painted, in floating-point gray levels (0–255).
struct Canvas {
    let width: Int
    let height: Int
    var values: [Float]

    mutating func fill(x: Double, y: Double, w: Double, h: Double, level: Float) {
        let x0 = max(0, Int(x.rounded()))
        let x1 = min(width, Int((x + w).rounded()))
        let y0 = max(0, Int(y.rounded()))
        let y1 = min(height, Int((y + h).rounded()))
        guard x0 < x1, y0 < y1 else { return }
        for yy in y0..<y1 { for xx in x0..<x1 { values[yy * width + xx] = level } }
    }

    /// Every level as `level * gain + offset`.
    mutating func light(gain: Float, offset: Float = 0) {
        for i in values.indices { values[i] = values[i] * gain + offset }
    }

    /// The picture moved by whole pixels (the edges repeat), as a shaking camera sees it.
    mutating func shift(dx: Int, dy: Int) {
        let old = values
        for y in 0..<height {
            for x in 0..<width {
                let sx = min(width - 1, max(0, x - dx))
                let sy = min(height - 1, max(0, y - dy))
                values[y * width + x] = old[sy * width + sx]
            }
        }
    }

    /// Scaled down by 2 in each direction (each pixel the mean of four, as videoscale's default method gives),
    /// rounded and clipped to bytes.
    func halved() -> GrayFrame {
        let (w, h) = (width / 2, height / 2)
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let i = 2 * y * width + 2 * x
                let mean = (values[i] + values[i + 1] + values[i + width] + values[i + width + 1]) / 4
                pixels[y * w + x] = UInt8(max(0, min(255, mean.rounded())))
            }
        }
        return GrayFrame(width: w, height: h, pixels: pixels)!
    }
}

/// A generated scene with known ground truth: a still scene (a gradient, blocks with hard edges, a fine texture)
/// painted at 320x180, with what `paint` adds at each frame's time, and handed to the detector at 160x90 like the
/// motion branch's scaler would. Nothing is read from a file.
struct MotionScene {
    var seconds = 10.0
    var fps = 5.0
    var seed: UInt64 = 7
    var paint: (inout Canvas, Double, inout SeededRandom) -> Void = { _, _, _ in }

    static func still(seed: UInt64) -> Canvas {
        var random = SeededRandom(seed: seed)
        var canvas = Canvas(width: 320, height: 180, values: [])
        canvas.values = (0..<(320 * 180)).map { (i: Int) -> Float in
            let gradient: Int = 60 + (i % 320) / 4 + (i / 320) / 3
            let grain: Int = Int(random.next() % 17) - 8
            return Float(gradient + grain)
        }
        for (x, y, w, h, level) in [
            (20.0, 20.0, 60.0, 40.0, Float(200)), (200, 30, 80, 50, 30), (120, 110, 50, 50, 220),
            (250, 120, 40, 40, 90),
        ] {
            canvas.fill(x: x, y: y, w: w, h: h, level: level)
        }
        return canvas
    }

    /// Each frame's time and picture.
    func frames() -> [(time: Double, frame: GrayFrame)] {
        let still = Self.still(seed: seed)
        var random = SeededRandom(seed: seed &+ 1)
        return (0..<Int(seconds * fps)).map { n in
            let time = Double(n) / fps
            var canvas = still
            paint(&canvas, time, &random)
            return (time, canvas.halved())
        }
    }

    /// Runs `detector` over the scene: every observation, with its time.
    func run(_ settings: MotionSettings = MotionSettings()) -> [(time: Double, seen: MotionDetector.Observation)] {
        var detector = MotionDetector(settings: settings)
        return frames().map { ($0.time, detector.observe($0.frame, at: $0.time)) }
    }

    /// Adds Gaussian noise of `sigma` gray levels to every pixel (Box–Muller).
    static func noise(_ canvas: inout Canvas, sigma: Float, _ random: inout SeededRandom) {
        for i in canvas.values.indices {
            let u1 = max(1e-9, Double(random.next() >> 11) / Double(1 << 53))
            let u2 = Double(random.next() >> 11) / Double(1 << 53)
            canvas.values[i] += sigma * Float((-2 * log(u1)).squareRoot() * cos(2 * .pi * u2))
        }
    }
}

extension Array where Element == (time: Double, seen: MotionDetector.Observation) {
    var starts: [Double] {
        compactMap { if case .started(let at) = $0.seen.transition { return at } else { return nil } }
    }
    var ends: [Double] { compactMap { if case .ended(let at) = $0.seen.transition { return at } else { return nil } } }
}
