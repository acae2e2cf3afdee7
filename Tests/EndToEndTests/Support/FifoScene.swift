import Foundation
import TestSupport

/// A picture like a real camera's rather than a test pattern: a textured still background (8×8 blocks of random
/// gray with a fine grain on them), sensor noise of σ ≈ 3 on every frame, and a dark object (60×80) crossing from
/// left to right at `crossAt` for `crossFor` seconds. 320x240 I420 frames for `FifoCamera`, at 10 fps. Hard on an
/// encoder's rate control (nothing repeats from frame to frame), and motion only where the object is.
struct FifoScene: Sendable {
    static let (width, height) = (320, 240)
    var crossAt: Double
    var crossFor: Double
    var seed: UInt64 = 7
    /// Each frame carries its number, 16 bits as 8x8 blocks (black 0, white 1) along the top left (`frameNumbers`
    /// reads them back from a file): which frames a clip holds, and whether any is missing or repeated. The
    /// blocks change every frame: keep motion detection off them (`stampMask`).
    var stampsFrameNumbers = false
    /// A motion mask over the frame numbers, for `[motion] masks`.
    static let stampMask = "[[0, 0], [0.3, 0], [0.3, 0.15], [0, 0.15]]"

    /// The still background's luma, and a long band of noise each frame takes a window of (so no two frames share it).
    private let background: [UInt8]
    private let noise: [Int8]

    init(crossAt: Double, crossFor: Double, seed: UInt64 = 7, stampsFrameNumbers: Bool = false) {
        (self.crossAt, self.crossFor, self.seed, self.stampsFrameNumbers) = (
            crossAt, crossFor, seed, stampsFrameNumbers
        )
        var random = SeededRandom(seed: seed)
        let (w, h) = (Self.width, Self.height)
        let blocks = (0..<(w / 8 * h / 8)).map { _ in Int(40 + random.next() % 181) }
        background = (0..<(w * h)).map { i in
            let block = blocks[(i / w / 8) * (w / 8) + (i % w) / 8]
            let grain = Int(random.next() % 41) - 20
            return UInt8(clamping: block + grain)
        }
        // The sum of two uniform draws in -3...3: σ ≈ 2.8.
        noise = (0..<(w * h + 65_536)).map { _ in Int8(Int(random.next() % 7) + Int(random.next() % 7) - 6) }
    }

    /// Frame `n` (at n / 10 s), I420.
    func frame(_ n: Int) -> [UInt8] {
        let (w, h) = (Self.width, Self.height)
        let offset = Int(UInt64(n).multipliedReportingOverflow(by: 40_503).partialValue % 65_536)
        var bytes = [UInt8](repeating: 128, count: w * h * 3 / 2)
        for i in 0..<(w * h) { bytes[i] = UInt8(clamping: Int(background[i]) + Int(noise[offset + i])) }
        let t = Double(n) / 10
        if t >= crossAt, t < crossAt + crossFor {
            let x = Int((t - crossAt) / crossFor * Double(w + 60)) - 60
            for y in 80..<160 {
                for xx in max(0, x)..<min(w, max(0, x + 60)) {
                    bytes[y * w + xx] = UInt8(clamping: 20 + Int(noise[offset + y * w + xx]))
                }
            }
        }
        if stampsFrameNumbers { Self.stamp(n, into: &bytes) }
        return bytes
    }

    /// Bit k of `n` as the 8x8 block at column k % 8, row k / 8 (from the top left).
    private static func stamp(_ n: Int, into bytes: inout [UInt8]) {
        for bit in 0..<16 {
            let level: UInt8 = (n >> bit) & 1 == 1 ? 235 : 16
            let (bx, by) = ((bit % 8) * 8, (bit / 8) * 8)
            for y in by..<(by + 8) { for x in bx..<(bx + 8) { bytes[y * width + x] = level } }
        }
    }

    /// The frame numbers of every frame of `path`, in order (decoded by ffmpeg; each block read at its centre).
    static func frameNumbers(in path: String) throws -> [Int] {
        let result = try ProcessOutcome.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-i", path, "-fps_mode", "passthrough",
                "-vf", "crop=64:16:0:0", "-f", "rawvideo", "-pix_fmt", "gray", "-",
            ], timeout: 120)
        guard result.status == 0 else { throw DaemonError(message: "ffmpeg failed on \(path): \(result.stderr)") }
        let bytes = Array(result.stdoutData)
        let frameBytes = 64 * 16
        return stride(from: 0, to: bytes.count - frameBytes + 1, by: frameBytes).map { start in
            (0..<16).reduce(0) { n, bit in
                let (x, y) = ((bit % 8) * 8 + 4, (bit / 8) * 8 + 4)
                return bytes[start + y * 64 + x] > 128 ? n | (1 << bit) : n
            }
        }
    }
}
