import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// The preview on a real KMS device (virtio-gpu in the VM lab, `lab-vm --display`), judged from pictures of the
/// screen that QEMU takes (`lab-vm --screendump`): the camera's picture fills it, and the red ● REC mark with the
/// elapsed time is drawn over it while recording, not while idle.
final class LabScreenTests: XCTestCase {
    /// Where the overlay draws on the 1280x800 screen: the top left, over vivid's grey, yellow, cyan and green bars
    /// (its red bar is further right).
    static let overlayRegion = RGBImage.Rect(x: 0, y: 0, width: 600, height: 240)

    /// A picture of the screen now, as RGB: QEMU's screendump as binary PPM (`P6 W H 255`, then the pixels), read
    /// here rather than decoded by another process (each costs seconds under TCG).
    func screen(_ name: String) throws -> RGBImage {
        let labVM = FileManager.default.currentDirectoryPath + "/Tests/Lab/lab-vm"
        let path = try Lab.run(labVM, ["--screendump", "\(name).ppm"], timeout: 90).trimmingCharacters(
            in: .whitespacesAndNewlines)
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var fields: [Int] = []
        var index = 2
        guard data.starts(with: Array("P6".utf8)) else { throw DaemonError(message: "\(path) is not a binary PPM") }
        while fields.count < 3, index < data.count {
            while index < data.count,
                data[index] == 0x20 || data[index] == 0x0A || data[index] == 0x09 || data[index] == 0x0D
            { index += 1 }
            var number = 0
            while index < data.count, (0x30...0x39).contains(data[index]) {
                number = number * 10 + Int(data[index] - 0x30)
                index += 1
            }
            fields.append(number)
        }
        index += 1  // the single whitespace after the maximum value
        guard fields.count == 3, fields[2] == 255, data.count - index == fields[0] * fields[1] * 3 else {
            throw DaemonError(message: "\(path): unexpected PPM header \(fields)")
        }
        print("lab: screen picture \(path)")
        return RGBImage(width: fields[0], height: fields[1], bytes: Array(data[index...]))
    }

    /// vivid's colour bars across the screen (at 320x180 with its text off: grey, yellow, cyan, green, magenta, red,
    /// blue, black), sampled below the overlay: the camera's picture fills the screen.
    static func showsCamera(_ image: RGBImage) -> Bool {
        let y = image.height * 6 / 10
        let (yellow, cyan, green) = (
            image.pixel(image.width * 19 / 100, y), image.pixel(image.width * 31 / 100, y),
            image.pixel(image.width * 44 / 100, y)
        )
        return yellow.r > 140 && yellow.g > 140 && yellow.b < 80 && cyan.r < 80 && cyan.g > 140 && cyan.b > 140
            && green.r < 80 && green.g > 140 && green.b < 80
    }

    /// The pixels `showsCamera` looks at, for a failure's message.
    static func samples(_ image: RGBImage) -> String {
        let y = image.height * 6 / 10
        return [19, 31, 44].map { "\($0) %: \(image.pixel(image.width * $0 / 100, y))" }.joined(separator: ", ")
    }

    static func redMark(_ image: RGBImage) -> Int { image.count(in: overlayRegion, RGBImage.isRed) }

    func poll(_ name: String, timeout: TimeInterval, until condition: (RGBImage) -> Bool) throws -> RGBImage {
        var attempt = 0
        var image = try screen("\(name)-\(attempt)")
        // A screendump takes a while under TCG: no pause between two.
        try Poll.until(timeout: timeout, every: 0) {
            if condition(image) { return true }
            attempt += 1
            image = try screen("\(name)-\(attempt)")
            return condition(image)
        }
        return image
    }

    func testPreviewOnTheKMSScreenShowsTheCameraAndRECWhileRecording() throws {
        try Lab.require()
        try XCTSkipUnless(ProcessInfo.processInfo.environment["APPLIANCE_LAB_DISPLAY"] == "1", "needs lab-vm --display")
        let node = try Lab.vivid()
        // vivid's own text off (only the overlay's), and its picture still (earlier tests leave it moving).
        try Lab.run("v4l2-ctl", ["-d", node, "-c", "osd_text_mode=2", "-c", "horizontal_movement=3"])
        let daemon = try DaemonProcess(
            extra: LabCameraTests.config(width: 320, height: 180, framerate: 10),
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
        XCTAssertTrue(Self.showsCamera(recording), "while recording: \(Self.samples(recording))")
        // The elapsed time ticks: the overlay changes under a still camera picture. A turning digit moved the region's
        // mean by 0.047 in CI (two seconds on, below the 0.05 asked then); polled, so a slow tick under TCG counts.
        let later = try poll("recording-later", timeout: 30) {
            $0.difference(to: recording, in: Self.overlayRegion) > 0.01
        }
        XCTAssertGreaterThan(
            later.difference(to: recording, in: Self.overlayRegion), 0.01, "the elapsed time did not tick")

        _ = try daemon.recordStop()
        let stopped = try poll("stopped", timeout: 60) { Self.redMark($0) == 0 && Self.showsCamera($0) }
        XCTAssertEqual(Self.redMark(stopped), 0, "the REC mark stayed after the recording stopped")
        XCTAssertTrue(Self.showsCamera(stopped), "after the stop: \(Self.samples(stopped))")
    }
}
