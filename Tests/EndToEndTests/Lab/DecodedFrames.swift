import Foundation
import TestSupport

/// A clip's video decoded to grey frames by ffmpeg, frame by frame as stored (no rate conversion): what a viewer
/// would see, to tell a camera's picture from the black filler and a moving picture from a repeated frame.
struct DecodedFrames {
    let width: Int
    let height: Int
    let frames: [[UInt8]]

    init(_ path: String, width: Int, height: Int) throws {
        let result = try ProcessOutcome.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough",
                "-f", "rawvideo", "-pix_fmt", "gray", "-",
            ], timeout: 300)
        guard result.status == 0 else { throw DaemonError(message: "ffmpeg failed on \(path): \(result.stderr)") }
        let size = width * height
        let bytes = Array(result.stdoutData)
        (self.width, self.height) = (width, height)
        frames = stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<($0 + size)]) }
    }

    /// Spread of a frame's luma: 0 for a flat picture such as the black filler.
    static func contrast(_ frame: [UInt8]) -> Double {
        let mean = frame.reduce(0.0) { $0 + Double($1) } / Double(max(frame.count, 1))
        let variance =
            frame.reduce(0.0) { $0 + (Double($1) - mean) * (Double($1) - mean) } / Double(max(frame.count, 1))
        return variance.squareRoot()
    }

    /// Mean absolute difference between two frames (0 for a repeated frame; a moving picture gives several units).
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        var total = 0
        for i in stride(from: 0, to: min(a.count, b.count), by: 1) { total += abs(Int(a[i]) - Int(b[i])) }
        return Double(total) / Double(max(min(a.count, b.count), 1))
    }

    /// Frames (by index) whose picture is flat: the filler.
    var flatFrames: [Int] { frames.indices.filter { Self.contrast(frames[$0]) < 4 } }

    /// Frames (by index) that repeat the frame before them.
    var repeatedFrames: [Int] {
        frames.indices.dropFirst().filter { Self.difference(frames[$0 - 1], frames[$0]) < 0.5 }
    }
}
