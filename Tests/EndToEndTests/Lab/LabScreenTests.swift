import ApplianceProtocol
import Foundation
import XCTest

/// The preview on a real KMS device (virtio-gpu in the VM lab, `lab-vm --display`), judged from pictures of the
/// screen that QEMU takes (`lab-vm --screendump`): the camera's picture fills it, and the red ● REC mark with the
/// elapsed time is drawn over it while recording, not while idle.
final class LabScreenTests: XCTestCase {
    /// Where the overlay draws on the 1280x800 screen: the top left, over vivid's blue, black, grey and yellow bars
    /// (its red bar is on the right).
    static let overlayRegion = RGBImage.Rect(x: 0, y: 0, width: 600, height: 240)

    /// A picture of the screen now, as RGB (QEMU's screendump PNG, decoded by ffmpeg).
    func screen(_ name: String) throws -> RGBImage {
        let labVM = FileManager.default.currentDirectoryPath + "/Tests/Lab/lab-vm"
        let path = try Lab.run(labVM, ["--screendump", "\(name).png"], timeout: 90)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let size = try MediaProbe(path).video
        let (width, height) = (try XCTUnwrap(size?.width), try XCTUnwrap(size?.height))
        let result = try CommandResult.run("/usr/bin/ffmpeg", ["-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
        guard result.status == 0, result.stdoutData.count == width * height * 3 else {
            throw DaemonError(message: "cannot decode \(path): \(result.stderr)")
        }
        print("lab: screen picture \(path)")
        return RGBImage(width: width, height: height, bytes: [UInt8](result.stdoutData))
    }

    /// vivid's colour bars across the screen: yellow, cyan and green where a full-screen picture puts them.
    static func showsCamera(_ image: RGBImage) -> Bool {
        let y = image.height / 2
        let (yellow, cyan, green) = (image.pixel(image.width * 41 / 100, y), image.pixel(image.width * 54 / 100, y),
                                     image.pixel(image.width * 66 / 100, y))
        return yellow.r > 140 && yellow.g > 140 && yellow.b < 80 && cyan.r < 80 && cyan.g > 140 && cyan.b > 140
            && green.r < 80 && green.g > 140 && green.b < 80
    }

    static func redMark(_ image: RGBImage) -> Int { image.count(in: overlayRegion, RGBImage.isRed) }

    func poll(_ name: String, timeout: TimeInterval, until condition: (RGBImage) -> Bool) throws -> RGBImage {
        let deadline = Date().addingTimeInterval(timeout)
        var attempt = 0
        var image = try screen("\(name)-\(attempt)")
        while !condition(image), Date() < deadline {
            attempt += 1
            image = try screen("\(name)-\(attempt)")
        }
        return image
    }

    func testPreviewOnTheKMSScreenShowsTheCameraAndRECWhileRecording() throws {
        try Lab.require()
        try XCTSkipUnless(ProcessInfo.processInfo.environment["APPLIANCE_LAB_DISPLAY"] == "1", "needs lab-vm --display")
        let node = try Lab.vivid()
        try Lab.run("v4l2-ctl", ["-d", node, "-c", "osd_text_mode=2"])  // vivid's own text off: only the overlay's
        let daemon = try DaemonProcess(extra: LabCameraTests.config(width: 320, height: 180, framerate: 10),
                                       cameras: LabCameraTests.camera(node), root: Lab.scratch)
        var config = try String(contentsOfFile: daemon.configPath, encoding: .utf8)
        config = config.replacingOccurrences(of: "sink = \"none\"", with: "sink = \"kms-fullscreen\"\noverlay = true")
        try config.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        try daemon.start(timeout: 180)
        defer { daemon.stop() }
        XCTAssertEqual(try daemon.status().preview, "kms-fullscreen")

        let idle = try poll("idle", timeout: 60) { Self.showsCamera($0) }
        XCTAssertTrue(Self.showsCamera(idle), "the camera's bars are not on the screen: \(daemon.log.suffix(3000))")
        XCTAssertEqual(Self.redMark(idle), 0, "red in the overlay's place while idle")

        _ = try daemon.recordStart(title: "on screen")
        let recording = try poll("recording", timeout: 60) { Self.redMark($0) > 100 }
        XCTAssertGreaterThan(Self.redMark(recording), 100, "no red ● REC mark on the screen while recording")
        XCTAssertTrue(Self.showsCamera(recording))
        Thread.sleep(forTimeInterval: 2)
        let later = try screen("recording-later")
        XCTAssertGreaterThan(later.difference(to: recording, in: Self.overlayRegion), 0.05, "the elapsed time did not tick")

        _ = try daemon.recordStop()
        let stopped = try poll("stopped", timeout: 60) { Self.redMark($0) == 0 }
        XCTAssertEqual(Self.redMark(stopped), 0, "the REC mark stayed after the recording stopped")
        XCTAssertTrue(Self.showsCamera(stopped))
    }
}
