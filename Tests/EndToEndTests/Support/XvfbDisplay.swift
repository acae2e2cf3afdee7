import ApplianceBase
import Foundation
import TestSupport
import XCTest

/// A private X server (Xvfb) for preview windows, on a display number nobody uses; stopped by its PID.
final class XvfbDisplay {
    static let binary = "/usr/bin/Xvfb"
    let number: Int
    let width: Int, height: Int
    private let process: Process
    var display: String { ":\(number)" }

    /// Skips the test when Xvfb is not installed (`packaging/install-deps.sh --test` installs it).
    init(width: Int = 1280, height: Int = 720) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.binary) else {
            throw XCTSkip("Xvfb is not installed (packaging/install-deps.sh --test installs it)")
        }
        (self.width, self.height) = (width, height)
        var lastError = ""
        for candidate in 90..<190 where !Self.inUse(candidate) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = [":\(candidate)", "-screen", "0", "\(width)x\(height)x24", "-nolisten", "tcp"]
            let logPath = FileManager.default.temporaryDirectory.appendingPathComponent(
                "xvfb-\(candidate)-\(getpid()).log"
            ).path
            _ = FileManager.default.createFile(atPath: logPath, contents: nil)
            defer { try? FileManager.default.removeItem(atPath: logPath) }
            let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
            defer { try? log.close() }
            process.standardOutput = log
            process.standardError = log
            try process.run()
            Poll.until(timeout: 10) {
                !process.isRunning || FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(candidate)")
            }
            if process.isRunning, FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(candidate)") {
                (number, self.process) = (candidate, process)
                return
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            lastError = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
        }
        throw DaemonError(message: "no Xvfb display could be started: \(lastError)")
    }

    private static func inUse(_ n: Int) -> Bool {
        FileManager.default.fileExists(atPath: "/tmp/.X\(n)-lock")
            || FileManager.default.fileExists(atPath: "/tmp/.X11-unix/X\(n)")
    }

    deinit { stop() }

    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    /// The whole screen now, grabbed by ffmpeg's x11grab.
    func screenshot() throws -> RGBImage {
        let result = try ProcessOutcome.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-f", "x11grab", "-video_size", "\(width)x\(height)", "-i", display,
                "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
            ], timeout: 30)
        guard result.status == 0, result.stdoutData.count == width * height * 3 else {
            throw DaemonError(
                message: "x11grab failed (\(result.status), \(result.stdoutData.count) bytes): \(result.stderr)")
        }
        return RGBImage(width: width, height: height, bytes: [UInt8](result.stdoutData))
    }
}

/// A picture as packed RGB bytes, judged by counting pixels.
struct RGBImage {
    let width: Int, height: Int
    let bytes: [UInt8]

    struct Rect { var x: Int, y: Int, width: Int, height: Int }

    func pixel(_ x: Int, _ y: Int) -> (r: Int, g: Int, b: Int) {
        let i = (y * width + x) * 3
        return (Int(bytes[i]), Int(bytes[i + 1]), Int(bytes[i + 2]))
    }

    /// How many pixels of `rect` satisfy `test`.
    func count(in rect: Rect, _ test: (_ r: Int, _ g: Int, _ b: Int) -> Bool) -> Int {
        var n = 0
        for y in rect.y..<min(height, rect.y + rect.height) {
            for x in rect.x..<min(width, rect.x + rect.width) {
                let p = pixel(x, y)
                if test(p.r, p.g, p.b) { n += 1 }
            }
        }
        return n
    }

    /// Mean absolute difference per channel over `rect` (0…255).
    func difference(to other: RGBImage, in rect: Rect) -> Double {
        var sum = 0
        var n = 0
        for y in rect.y..<min(height, rect.y + rect.height) {
            for x in rect.x..<min(width, rect.x + rect.width) {
                let (a, b) = (pixel(x, y), other.pixel(x, y))
                sum += abs(a.r - b.r) + abs(a.g - b.g) + abs(a.b - b.b)
                n += 3
            }
        }
        return n == 0 ? 0 : Double(sum) / Double(n)
    }

    static func isRed(_ r: Int, _ g: Int, _ b: Int) -> Bool { r > 190 && g < 80 && b < 80 }
    static func isWhite(_ r: Int, _ g: Int, _ b: Int) -> Bool { r > 220 && g > 220 && b > 220 }

    /// One decoded frame of a video file at `seconds`.
    static func frame(of path: String, at seconds: Double, width: Int, height: Int) throws -> RGBImage {
        let result = try ProcessOutcome.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-ss", String(format: "%.3f", seconds), "-i", path, "-frames:v", "1",
                "-f", "rawvideo", "-pix_fmt", "rgb24", "-",
            ], timeout: 60)
        guard result.status == 0, result.stdoutData.count == width * height * 3 else {
            throw DaemonError(
                message:
                    "decoding \(path) failed (\(result.status), \(result.stdoutData.count) bytes): \(result.stderr)")
        }
        return RGBImage(width: width, height: height, bytes: [UInt8](result.stdoutData))
    }

    /// Writes a PNG (for people looking at a failure); returns its path.
    @discardableResult
    func savePNG(_ path: String) throws -> String {
        let raw = path + ".rgb"
        try Data(bytes).write(to: URL(fileURLWithPath: raw))
        defer { try? FileManager.default.removeItem(atPath: raw) }
        let result = try ProcessOutcome.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb24", "-video_size", "\(width)x\(height)", "-i",
                raw,
                "-frames:v", "1", path,
            ], timeout: 30)
        if result.status != 0 { throw DaemonError(message: "PNG: \(result.stderr)") }
        return path
    }
}
