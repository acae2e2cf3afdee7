import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// A simulated gpiochip in the VM lab: gpio-sim (built for the lab's kernel by Tests/Lab/gpio-sim/build.sh and
/// loaded by lab-vm), made through configfs. Its input lines follow the `pull` files in sysfs, with edge interrupts
/// and the kernel's line events, as a button wired to a board's GPIO header.
final class GpioSimChip {
    static let configfs = "/sys/kernel/config/gpio-sim"
    let root: String
    let lines: [Int: String]
    private(set) var chipName = ""
    private(set) var deviceName = ""

    var device: String { "/dev/\(chipName)" }

    /// `label`: the chip's label, which the daemon finds it by (its /dev/gpiochipN number may change when it comes
    /// back).
    init(name: String, label: String, lineCount: Int, names: [Int: String]) throws {
        guard FileManager.default.fileExists(atPath: Self.configfs) else {
            throw DaemonError(
                message:
                    """
                    gpio-sim is not loaded: lab-vm builds it with Tests/Lab/gpio-sim/build.sh (linux-source and \
                    linux-headers of the lab kernel)
                    """
            )
        }
        root = "\(Self.configfs)/\(name)"
        lines = names
        try FileManager.default.createDirectory(atPath: "\(root)/bank0", withIntermediateDirectories: true)
        try Self.write("\(lineCount)", to: "\(root)/bank0/num_lines")
        try Self.write(label, to: "\(root)/bank0/label")
        for (offset, line) in names {
            try FileManager.default.createDirectory(
                atPath: "\(root)/bank0/line\(offset)", withIntermediateDirectories: true)
            try Self.write(line, to: "\(root)/bank0/line\(offset)/name")
        }
        try setLive(true)
    }

    func setLive(_ live: Bool) throws {
        try Self.write(live ? "1" : "0", to: "\(root)/live")
        guard live else { return }
        chipName = try Self.read("\(root)/bank0/chip_name")
        deviceName = try Self.read("\(root)/dev_name")
        Poll.until(timeout: 10) { FileManager.default.fileExists(atPath: device) }
    }

    /// Drives an input line as a pull resistor would: what a consumer of the line reads (and its edge events).
    func pull(_ offset: Int, up: Bool) throws {
        try Self.write(
            up ? "pull-up" : "pull-down", to: "/sys/devices/platform/\(deviceName)/\(chipName)/sim_gpio\(offset)/pull")
    }

    /// Presses a button wired from the line to ground (active low): low for `seconds`, then released.
    func press(_ offset: Int, holding seconds: TimeInterval = 0.15) throws {
        try pull(offset, up: false)
        Thread.sleep(forTimeInterval: seconds)  // the subject: the button held down this long
        try pull(offset, up: true)
    }

    func remove() {
        try? setLive(false)
        for offset in lines.keys { try? FileManager.default.removeItem(atPath: "\(root)/bank0/line\(offset)") }
        rmdir("\(root)/bank0")
        rmdir(root)
    }

    private static func write(_ text: String, to path: String) throws {
        guard let handle = FileHandle(forWritingAtPath: path) else { throw DaemonError(message: "cannot open \(path)") }
        defer { try? handle.close() }
        try handle.write(contentsOf: Data(text.utf8))
    }

    private static func read(_ path: String) throws -> String {
        try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// The board's GPIO shutter on a real gpiochip (gpio-sim in the VM lab), until now tested through a FIFO only: found
/// by its line's name, press, hold, double press, a bouncing contact counted once, and the chip going away and
/// coming back.
final class LabGpioTests: XCTestCase {
    func testAButtonOnASimulatedGpioChip() throws {
        try Lab.require()
        let chip = try GpioSimChip(name: "shutter", label: "shutter-chip", lineCount: 8, names: [5: "SHUTTER"])
        defer { chip.remove() }
        try chip.pull(5, up: true)  // released: the button's pull-up
        let daemon = try DaemonProcess(
            extra: LabCameraTests.config(width: 320, height: 180, framerate: 10), root: Lab.scratch)
        try daemon.appendConfig(
            """
            [[input]]
            label = "shutter"
            kind = "gpio"
            chip = "shutter-chip"
            line = "SHUTTER"
            active_low = true
            bias = "pull-up"
            debounce_ms = 30
            action = "toggle"
            long_press_action = "snapshot"
            long_press_ms = 800
            double_press_action = "protect"
            double_press_ms = 1500
            """)
        // Each edge as read and each gesture, in the log shown when the test fails.
        try String(contentsOfFile: daemon.configPath, encoding: .utf8).replacingOccurrences(
            of: "log_level = \"info\"", with: "log_level = \"debug\""
        )
        .write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        try daemon.start(timeout: 180)
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            let events = try TypedEvents(daemon, timeout: 60)
            func gesture() throws -> InputGesture {
                try events.waitFor("input_gesture from the shutter") {
                    if case .inputGesture(let g) = $0, g.label == "shutter" { return g }
                    return nil
                }
            }
            /// A gesture and the recording event its command caused, in whichever order they come.
            func gesture(then recording: String) throws -> InputGesture {
                enum Seen { case gesture(InputGesture), recording }
                let seen = try events.waitForAll(
                    "the shutter's gesture and \(recording)",
                    [
                        {
                            if case .inputGesture(let g) = $0, g.label == "shutter" { return Seen.gesture(g) }
                            return nil
                        },
                        { event -> Seen? in
                            switch event {
                            case .recordingStarted where recording == "recording_started": return .recording
                            case .recordingStopped where recording == "recording_stopped": return .recording
                            default: return nil
                            }
                        },
                    ])
                guard case .gesture(let g) = seen[0] else { throw DaemonError(message: "unexpected events") }
                return g
            }
            XCTAssertTrue(
                try daemon.waitFor(30) { try daemon.status().inputs?.first?.state == .connected },
                "\(String(describing: try? daemon.status().inputs))")
            let input = try XCTUnwrap(try daemon.status().inputs?.first)
            XCTAssertEqual(input.device, "shutter-chip line SHUTTER", "\(input)")

            // A press starts a recording.
            try chip.press(5)
            XCTAssertEqual(try gesture(then: "recording_started").gesture, .press)

            // Two taps: a double press. (Slow ones: under the lab's emulated CPU the kernel's debounce work runs late,
            // and a tap much shorter than that is debounced away whole.)
            try chip.press(5, holding: 0.3)
            Thread.sleep(forTimeInterval: 0.3)  // the subject: a finger's pause between the taps
            try chip.press(5, holding: 0.3)
            let double = try gesture()
            XCTAssertEqual(double.gesture, .doublePress)
            XCTAssertEqual(double.command, "protect")
            XCTAssertEqual(try daemon.status().state, .recording, "protect, not a toggle")

            // A bouncing contact: five edges within a few milliseconds, then held: one press, which stops it.
            for _ in 0..<2 {
                try chip.pull(5, up: false)
                try chip.pull(5, up: true)
            }
            try chip.press(5, holding: 0.2)
            XCTAssertEqual(try gesture(then: "recording_stopped").gesture, .press)

            // Held past long_press_ms: a snapshot; and the next gesture is that long press (the bounce made no second
            // press).
            try chip.press(5, holding: 1.2)
            let long = try gesture()
            XCTAssertEqual(long.gesture, .longPress)
            XCTAssertEqual(long.command, "snapshot")
            XCTAssertNil(long.error)

            // Two taps again, after the bounce and the long press: still a double press. The pause first is a finger's:
            // a release followed by a press within debounce_ms is no release at all (the line is read as held on), and
            // the long press event comes while the button is still held, so without it the test released and pressed
            // again within a few milliseconds under the emulated CPU and the taps were read as the long press's tail
            // and
            // one press.
            Thread.sleep(forTimeInterval: 0.3)  // the subject: a finger's pause after the long press (above)
            try chip.press(5, holding: 0.3)
            Thread.sleep(forTimeInterval: 0.3)  // the subject: a finger's pause between the taps
            try chip.press(5, holding: 0.3)
            XCTAssertEqual(try gesture().gesture, .doublePress)

            // The chip goes away (its line with it): missing; back: connected again, and the button works.
            try chip.setLive(false)
            try events.waitFor("input_missing") {
                if case .inputMissing(let s) = $0, s.label == "shutter" { return true }
                return nil
            }
            try chip.setLive(true)
            try chip.pull(5, up: true)
            try events.waitFor("input_connected") {
                if case .inputConnected(let s) = $0, s.label == "shutter" { return true }
                return nil
            }
            try chip.press(5)
            XCTAssertEqual(try gesture(then: "recording_started").gesture, .press)
            _ = try daemon.recordStop()
            XCTAssertTrue(daemon.isRunning)
        }
    }
}
