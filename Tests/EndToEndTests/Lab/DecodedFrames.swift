import Foundation
import TestSupport

/// A clip's video decoded to grey frames by ffmpeg, frame by frame as stored (no rate conversion): what a viewer
/// would see, to tell a camera's picture from the black filler and a moving picture from a repeated frame.
struct DecodedFrames {
    let width: Int
    let height: Int
    let frames: [[UInt8]]

    /// `scaledTo`: the size ffmpeg scales each frame to before handing it over (nil: as stored), for checks that do
    /// not need every pixel: the guest's debug build looked at a 640x360 clip's pixels for minutes under TCG.
    init(_ path: String, width: Int, height: Int, scaledTo: (width: Int, height: Int)? = nil) throws {
        let scale = scaledTo.map { ["-vf", "scale=\($0.width):\($0.height)"] } ?? []
        let result = try ProcessOutcome.run(
            "/usr/bin/ffmpeg",
            ["-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough"] + scale + [
                "-f", "rawvideo", "-pix_fmt", "gray", "-",
            ], timeout: 300)
        guard result.status == 0 else { throw DaemonError(message: "ffmpeg failed on \(path): \(result.stderr)") }
        (self.width, self.height) = scaledTo ?? (width, height)
        let size = self.width * self.height
        let bytes = Array(result.stdoutData)
        frames = stride(from: 0, to: bytes.count - size + 1, by: size).map { Array(bytes[$0..<($0 + size)]) }
    }

    /// Spread of a frame's luma: 0 for a flat picture such as the black filler. (Integer sums over the bytes: the
    /// lab runs a debug build under TCG, where a closure per pixel took seconds a frame.)
    static func contrast(_ frame: [UInt8]) -> Double {
        frame.withUnsafeBufferPointer { pixels in
            var (sum, squares) = (0, 0)
            for value in pixels {
                let v = Int(value)
                sum += v
                squares += v * v
            }
            let count = Double(max(pixels.count, 1))
            let mean = Double(sum) / count
            return max(0, Double(squares) / count - mean * mean).squareRoot()
        }
    }

    /// Mean absolute difference between two frames (0 for a repeated frame; a moving picture gives several units).
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> Double {
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                let count = min(a.count, b.count)
                var total = 0
                for i in 0..<count { total += abs(Int(a[i]) - Int(b[i])) }
                return Double(total) / Double(max(count, 1))
            }
        }
    }

    /// Frames (by index) whose picture is flat: the filler.
    var flatFrames: [Int] { frames.indices.filter { Self.contrast(frames[$0]) < 4 } }

    /// Frames (by index) that repeat the frame before them.
    var repeatedFrames: [Int] {
        frames.indices.dropFirst().filter { Self.difference(frames[$0 - 1], frames[$0]) < 0.5 }
    }
}
