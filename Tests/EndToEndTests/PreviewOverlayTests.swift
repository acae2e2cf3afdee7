import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// The preview screen for real: glimagesink in an Xvfb window, judged by the pixels of screenshots. The camera's
/// SMPTE bars are there; while recording the top left carries the red ● REC mark and white text (elapsed time,
/// camera), ticking; idle it is the plain picture. And `[video] timestamp_overlay` burns the date and time into the
/// file, while the preview's overlay never gets there.
final class PreviewOverlayTests: XCTestCase {
    static let (width, height) = (1280, 720)
    /// Where the overlay draws: the top left, over the white, yellow, cyan and green bars (no red in them).
    static let overlayRegion = RGBImage.Rect(x: 0, y: 0, width: 730, height: 120)
    /// Over the yellow, cyan and green bars only: no white pixel in the plain picture.
    static let textRegion = RGBImage.Rect(x: 186, y: 0, width: 544, height: 120)
    /// The bars below the overlay.
    static let barsRegion = RGBImage.Rect(x: 0, y: 160, width: 1280, height: 300)

    /// Where the PNGs go for people to look at (kept after the test).
    static let pictures: URL = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("appliance-preview-overlay")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }()

    /// The yellow, cyan and green bars at their columns (the camera's picture is shown).
    static func showsBars(_ image: RGBImage) -> Bool {
        let (yellow, cyan, green) = (image.pixel(274, 300), image.pixel(457, 300), image.pixel(640, 300))
        return yellow.r > 180 && yellow.g > 180 && yellow.b < 70
            && cyan.r < 70 && cyan.g > 180 && cyan.b > 180
            && green.r < 70 && green.g > 180 && green.b < 70
    }

    static func redMark(_ image: RGBImage) -> Int { image.count(in: overlayRegion, RGBImage.isRed) }
    static func whiteText(_ image: RGBImage) -> Int { image.count(in: textRegion, RGBImage.isWhite) }

    private func poll(_ screen: XvfbDisplay, timeout: TimeInterval, until condition: (RGBImage) -> Bool) throws
        -> RGBImage
    {
        var image = try screen.screenshot()
        try Poll.until(timeout: timeout, every: 0.2) {
            image = try screen.screenshot()
            return condition(image)
        }
        return image
    }

    func testPreviewOverlayShowsWhileRecordingAndNeverInTheFile() throws {
        let screen = try XvfbDisplay(width: Self.width, height: Self.height)
        defer { screen.stop() }
        let daemon = try DaemonProcess()
        var config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        config = config.replacingOccurrences(of: "sink = \"none\"", with: "sink = \"gl\"\noverlay = true")
        try config.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        daemon.environment = ["DISPLAY": screen.display]
        try daemon.start()
        defer { daemon.stop() }
        XCTAssertEqual(try daemon.status().preview, "gl")
        let tag = UUID().uuidString.prefix(8)
        func save(_ image: RGBImage, _ name: String) {
            _ = try? image.savePNG(Self.pictures.appendingPathComponent("\(tag)-\(name).png").path)
        }

        // Idle: the camera's picture, nothing over it.
        let idle = try poll(screen, timeout: 15) { Self.showsBars($0) }
        save(idle, "idle")
        XCTAssertTrue(
            Self.showsBars(idle), "no SMPTE bars on the screen (PNGs in \(Self.pictures.path)): \(daemon.log)")
        XCTAssertEqual(Self.redMark(idle), 0, "red in the overlay's place while idle")
        XCTAssertEqual(Self.whiteText(idle), 0, "white text over the bars while idle")

        // Recording: the red mark and white text appear, and the elapsed time ticks.
        _ = try daemon.recordStart()
        let recording = try poll(screen, timeout: 5) { Self.redMark($0) > 150 && Self.whiteText($0) > 300 }
        save(recording, "recording")
        XCTAssertGreaterThan(Self.redMark(recording), 150, "no red ● REC mark while recording")
        XCTAssertGreaterThan(Self.whiteText(recording), 300, "no white text while recording")
        XCTAssertTrue(Self.showsBars(recording))
        XCTAssertLessThan(
            recording.difference(to: idle, in: Self.barsRegion), 1, "the picture below the overlay changed")
        let later = try poll(screen, timeout: 5) { $0.difference(to: recording, in: Self.textRegion) > 0.2 }
        save(later, "recording-later")
        XCTAssertGreaterThan(later.difference(to: recording, in: Self.textRegion), 0.2, "the elapsed time did not tick")
        try daemon.waitUntilRecorded(1.8)  // the file has the frames looked at below (0.5 and 1.5 s)

        // Stopped: back to the plain picture.
        let stop = try daemon.recordStop()
        let after = try poll(screen, timeout: 3) { Self.redMark($0) == 0 && Self.whiteText($0) == 0 }
        save(after, "stopped")
        XCTAssertEqual(Self.redMark(after), 0, "the REC mark stayed after the stop")
        XCTAssertEqual(Self.whiteText(after), 0, "the text stayed after the stop")
        XCTAssertLessThan(
            after.difference(to: idle, in: Self.overlayRegion), 1, "the overlay's place is not the plain picture again")

        // The file has the picture but none of the preview's overlay.
        let path = stop.path
        for seconds in [0.5, 1.5] {
            let frame = try RGBImage.frame(of: path, at: seconds, width: Self.width, height: Self.height)
            save(frame, "file-\(seconds)s")
            XCTAssertTrue(Self.showsBars(frame), "the recording at \(seconds) s does not show the bars")
            XCTAssertEqual(Self.redMark(frame), 0, "the preview's REC mark is in the file at \(seconds) s")
            XCTAssertEqual(Self.whiteText(frame), 0, "the preview's text is in the file at \(seconds) s")
        }
    }

    /// `timestamp_overlay = true`: the date and time are in the file's frames (bottom left, compared with a clip
    /// recorded without it), and segment cuts still start on a keyframe: the in-band keyframe request passes the
    /// overlay (keyframes are 10 s apart here, so only the request can make them).
    func testTimestampOverlayIsBurnedIntoTheFile() throws {
        let video = "[video]\nkeyframe_interval_s = 10.0\n"
        let stamped = try DaemonProcess(extra: video + "timestamp_overlay = true\n[recording]\nsegment_s = 1.0")
        try stamped.start()
        _ = try stamped.recordStart()
        try stamped.waitUntilElapsed(3.4)
        let last = try stamped.recordStop()
        let group = try XCTUnwrap(last.group)
        let items = try stamped.list(perPage: 50).items
        let segments = items.filter { $0.group == group }
            .sorted { ($0.segment ?? 0) < ($1.segment ?? 0) }
            .map(\.path)
        stamped.stop()
        XCTAssertGreaterThanOrEqual(segments.count, 3)
        for (index, path) in segments.enumerated() {
            let probe = try MediaProbe(path)
            XCTAssertEqual(try probe.decodeErrors(), "", path)
            let flags = try ProcessOutcome.run(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-select_streams", "v:0", "-show_entries",
                    "packet=flags", "-of", "csv=p=0", path,
                ]
            ).stdout
            XCTAssertTrue(flags.hasPrefix("K"), "segment \(index + 1) does not start on a keyframe")
            if index < segments.count - 1 {
                XCTAssertEqual(probe.video?.frames, 30, "segment \(index + 1): 1 s at 30 fps")
            }
        }

        let plain = try DaemonProcess(extra: video)
        try plain.start()
        _ = try plain.recordStart()
        try plain.waitUntilRecorded(1.5)
        let reference = try plain.recordStop().path
        plain.stop()

        let tag = UUID().uuidString.prefix(8)
        let withTime = try RGBImage.frame(of: segments[0], at: 0.5, width: Self.width, height: Self.height)
        let without = try RGBImage.frame(of: reference, at: 0.5, width: Self.width, height: Self.height)
        try withTime.savePNG(Self.pictures.appendingPathComponent("\(tag)-timestamp.png").path)
        try without.savePNG(Self.pictures.appendingPathComponent("\(tag)-no-timestamp.png").path)
        // Bottom left: the dark blue bar of the SMPTE pattern; the text is white on a shaded band.
        let corner = RGBImage.Rect(x: 0, y: 620, width: 212, height: 100)
        XCTAssertGreaterThan(
            withTime.count(in: corner, RGBImage.isWhite), 200, "no burned-in text (PNGs in \(Self.pictures.path))")
        XCTAssertEqual(without.count(in: corner, RGBImage.isWhite), 0)
        XCTAssertGreaterThan(withTime.difference(to: without, in: corner), 10)
        XCTAssertLessThan(withTime.difference(to: without, in: Self.barsRegion), 3, "the rest of the picture differs")
        XCTAssertEqual(Self.redMark(withTime), 0)
    }
}
