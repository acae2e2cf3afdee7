import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// A clip written once (fragments while recording, one index appended at the end) is an ordinary MP4 to the
/// players people use: ffmpeg and VLC open it, seek into it and decode from there. (Chromium plays and seeks it
/// through the dashboard's Range responder in WebBrowserTests.)
final class FinishedClipPlayersTests: XCTestCase {
    func testAFinishedClipSeeksInFfmpegAndVLC() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        _ = try daemon.recordStart()
        XCTAssertTrue(
            try daemon.waitFor(30) { (try daemon.status().recording?.durationMs ?? 0) >= 8_000 }, "8 s recorded")
        let clip = try daemon.recordStop()
        XCTAssertEqual(try Mp4Layout(clip.path).atoms.map(\.type), ["ftyp", "free", "mdat", "moov"])
        let fps = Double(clip.framerate)

        // ffmpeg: seek to 4 s, decode 2 s.
        let ffmpeg = try ProcessOutcome.run(
            "/usr/bin/ffmpeg",
            [
                "-v", "error", "-ss", "4", "-i", clip.path, "-t", "2",
                "-map", "0:v:0", "-f", "framemd5", "-",
            ])
        XCTAssertEqual(ffmpeg.status, 0, ffmpeg.stderr)
        XCTAssertEqual(ffmpeg.stderr, "")
        let ffmpegFrames = ffmpeg.stdout.split(separator: "\n").filter { !$0.hasPrefix("#") }.count
        XCTAssertEqual(Double(ffmpegFrames), 2 * fps, accuracy: 2)

        // VLC (as an unprivileged user: it refuses root): start at 4 s, stop at 6 s.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("vlc-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o777])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let copy = folder + "/clip.mp4"
        try FileManager.default.copyItem(atPath: clip.path, toPath: copy)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: copy)
        let vlcArguments = [
            "-I", "dummy", "--no-audio", "--vout=dummy", "--video-filter=scene", "--scene-format=png",
            "--scene-ratio=10", "--scene-prefix=f", "--scene-path=\(folder)", "--start-time=4", "--stop-time=6",
            "--play-and-exit", copy,
        ]
        let vlc =
            getuid() == 0
            ? try ProcessOutcome.run("/usr/sbin/runuser", ["-u", "nobody", "--", "/usr/bin/cvlc"] + vlcArguments)
            : try ProcessOutcome.run("/usr/bin/cvlc", vlcArguments)
        XCTAssertEqual(vlc.status, 0, vlc.stderr)
        let pictures = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".png") }
        // Every 10th picture from 4 s to 6 s (from the start it would be three times as many): VLC found the keyframe
        // before 4 s through the index. (Every picture as PNG is slower than real time here: VLC drops some.)
        XCTAssertEqual(Double(pictures.count), 2 * fps / 10, accuracy: 2, "VLC saved \(pictures.count) pictures")
    }
}
