import Foundation
import MotionAndSound
import Settings

/// Check: motion detection, when `[motion] enabled`: at what rate it looks at the picture, and whether this machine
/// keeps up — the detector timed on frames of the configured size against the interval between them. (Its elements
/// are checked with the rest of the graph's.)
enum MotionCheck {
    static let name = "motion"
    static let trialFrames = 20

    static func run(_ config: ApplianceConfig) -> DoctorCheck {
        let m = config.motion
        guard m.enabled else { return .pass(name, "off ([motion] enabled = false)") }
        let (width, height) = (m.width, m.height(videoWidth: config.video.width, videoHeight: config.video.height))
        let fps = min(m.fps, config.video.framerate)
        let msPerFrame = timeDetector(settings: m.settings, width: width, height: height)
        let share = msPerFrame * Double(fps) / 10  // percent of a core
        let detail =
            """
            on: \(fps) frames a second at \(width)x\(height) of the \(config.video.width)x\(config.video.height) \
            picture, 
            """
            + String(format: "%.1f ms a frame (%.1f %% of a core)", msPerFrame, share)
            + (m.zones.isEmpty ? "" : ", zones \(m.zones.map(\.name).joined(separator: ", "))")
            + (m.masks.isEmpty ? "" : ", \(m.masks.count) mask\(m.masks.count == 1 ? "" : "s")")
        if share > 50 {
            return .warn(
                name, detail,
                fix: "lower [motion] fps or width: the detector would fall behind and look at fewer frames")
        }
        return .pass(name, detail)
    }

    /// Milliseconds the detector takes for one frame, over `trialFrames` frames of changing noise (every frame
    /// differs from the background, the most work a frame can make).
    static func timeDetector(settings: MotionSettings, width: Int, height: Int) -> Double {
        var random = SystemRandomNumberGenerator()
        let frames = (0..<2).compactMap { _ in
            GrayFrame(
                width: width, height: height,
                pixels: (0..<(width * height)).map { _ in UInt8.random(in: 0...255, using: &random) })
        }
        var detector = MotionDetector(settings: settings)
        let start = ContinuousClock.now
        for n in 0..<trialFrames { _ = detector.observe(frames[n % 2], at: Double(n) / 5) }
        return (ContinuousClock.now - start) / .milliseconds(1) / Double(trialFrames)
    }
}
