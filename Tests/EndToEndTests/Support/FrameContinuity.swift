import Foundation
import TestSupport
import XCTest

/// Frame-exact continuity across files, judged from the pictures: the test camera scrolls its SMPTE bars by
/// `speed` pixels per frame (videotestsrc horizontal-speed), so between two consecutive decoded frames the bars
/// move by exactly `speed` — by 0 for a repeated frame, by 2 × `speed` after a lost one.
struct FrameContinuity {
    static let speed = 4
    static let width = 320
    static let height = 240
    /// The `[video]` table and the camera the check needs.
    static let config = """
        [video]
        width = \(width)
        height = \(height)
        framerate = 30
        bitrate_kbps = 1000
        """
    static let camera = """
        [[camera]]
        name = "main"
        source = "pipeline"
        pipeline = "videotestsrc is-live=true pattern=smpte horizontal-speed=\(speed)"
        """

    /// One row of luma (through the top bars) per frame, decoded from each file in order.
    static func rows(of files: [String]) throws -> [[UInt8]] {
        var rows: [[UInt8]] = []
        for file in files {
            let result = try ProcessOutcome.run(
                "/usr/bin/ffmpeg",
                [
                    "-v", "error", "-i", file, "-fps_mode", "passthrough", "-vf", "crop=\(width):2:0:\(height / 4)",
                    "-f", "rawvideo", "-pix_fmt", "gray", "-",
                ], timeout: 120)
            guard result.status == 0 else { throw DaemonError(message: "ffmpeg failed on \(file): \(result.stderr)") }
            let bytes = Array(result.stdoutData)
            // Two rows per frame (4:2:0 crops in pairs of lines); the first is enough.
            rows += stride(from: 0, to: bytes.count - 2 * width + 1, by: 2 * width).map {
                Array(bytes[$0..<($0 + width)])
            }
        }
        return rows
    }

    /// How far the bars moved from `a` to `b`, in pixels to the left (0 ..< width, in steps of `speed`).
    static func movement(from a: [UInt8], to b: [UInt8]) -> Int {
        var best = (error: Int.max, shift: 0)
        for shift in stride(from: 0, to: width, by: speed) {
            var error = 0
            for i in stride(from: 0, to: width, by: 2) { error += abs(Int(a[(i + shift) % width]) - Int(b[i])) }
            if error < best.error { best = (error, shift) }
        }
        return best.shift
    }

    /// Indexes (into the decoded frame sequence) where the movement is not exactly one step.
    static func breaks(in rows: [[UInt8]]) -> [(index: Int, movement: Int)] {
        zip(rows.indices, zip(rows, rows.dropFirst())).compactMap { index, pair in
            let moved = movement(from: pair.0, to: pair.1)
            return moved == speed ? nil : (index, moved)
        }
    }
}
