import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Real footage as a camera: ffmpeg decodes a clip and writes its frames, raw I420 at 10 fps and in real time
/// (`-re`), into a FIFO the daemon's `filesrc` reads. When the clip ends the camera's stream ends.
final class ClipCamera: @unchecked Sendable {
    let name: String
    let path: String
    let width: Int, height: Int
    private let directory: URL
    private let ffmpeg = Process()

    /// opencv-doc's clips: `vtest.avi` (79.5 s, 768x576, people walking), `tree.avi` (29.6 s, 320x240, a tree in the
    /// wind).
    static func opencvClip(_ name: String) -> String { "/usr/share/doc/opencv-doc/examples/data/\(name)" }

    init(clip: String, width: Int, height: Int, name: String = "clip") throws {
        guard FileManager.default.isReadableFile(atPath: clip) else {
            throw DaemonError(message: "no clip \(clip) (opencv-doc)")
        }
        (self.name, self.width, self.height) = (name, width, height)
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "appliance-clip-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appendingPathComponent("camera.fifo").path
        guard mkfifo(path, 0o600) == 0 else { throw DaemonError(message: "mkfifo \(path): errno \(errno)") }
        ffmpeg.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        // Opening the FIFO for writing waits for the daemon to open it for reading: ffmpeg starts with the camera.
        ffmpeg.arguments = [
            "-nostdin", "-v", "error", "-re", "-i", clip, "-vf", "fps=10,scale=\(width):\(height)",
            "-f", "rawvideo", "-pix_fmt", "yuv420p", "-y", path,
        ]
        ffmpeg.standardError = FileHandle.nullDevice
        try ffmpeg.run()
    }

    deinit {
        if ffmpeg.isRunning { ffmpeg.terminate() }
        ffmpeg.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Whether ffmpeg is still writing (the clip has not ended).
    var playing: Bool { ffmpeg.isRunning }

    /// The `[video]` table that matches the frames.
    var video: String { "[video]\nwidth = \(width)\nheight = \(height)\nframerate = 10" }

    /// The `[[camera]]` table for the daemon's config.
    var config: String {
        """
        [[camera]]
        name = "\(name)"
        source = "pipeline"
        pipeline = "filesrc location=\(path) blocksize=\(width * height * 3 / 2) ! rawvideoparse width=\(width) \
        height=\(height) format=i420 framerate=10/1"
        """
    }
}
