import ApplianceProtocol
import Foundation
import XCTest

/// Shutters on real evdev devices (uinput, in the VM lab): found by name, grabbed, press / long press / double
/// press judged from the kernel's own timestamps, two devices at once, and a device unplugged and plugged back.
final class LabShutterTests: XCTestCase {
    static let space: UInt16 = 57, record: UInt16 = 167

    func testShuttersOnRealInputDevices() throws {
        try Lab.require()
        let foot = try UInputDevice(name: "Foot Switch", keys: [Self.space])
        let remote = try UInputDevice(name: "Remote Control", keys: [Self.record])
        let footNode = try XCTUnwrap(foot.node(), "no event node for the foot switch")
        XCTAssertNotNil(remote.node())
        let daemon = try DaemonProcess(
            extra: LabCameraTests.config(width: 320, height: 180, framerate: 10), root: Lab.scratch)
        try daemon.appendConfig(
            """
            [[input]]
            label = "foot"
            kind = "evdev"
            name = "Foot Switch"
            key = "KEY_SPACE"
            grab = true
            action = "toggle"
            long_press_action = "snapshot"
            long_press_ms = 800
            double_press_action = "protect"
            [[input]]
            label = "remote"
            kind = "evdev"
            name = "Remote Control"
            key = "KEY_RECORD"
            action = "toggle"
            """)
        try daemon.start(timeout: 180)
        defer { daemon.stop() }
        let events = try TypedEvents(daemon, timeout: 60)
        func gesture(_ label: String) throws -> InputGesture {
            try events.waitFor("input_gesture from \(label)") {
                if case .inputGesture(let g) = $0, g.label == label { return g }
                return nil
            }
        }
        /// A gesture and the recording event its command caused, in whichever order they come.
        func gesture(_ label: String, then recording: String) throws -> (InputGesture, RecordingStarted?) {
            enum Seen { case gesture(InputGesture), started(RecordingStarted?) }
            let seen = try events.waitForAll(
                "\(label)'s gesture and \(recording)",
                [
                    {
                        if case .inputGesture(let g) = $0, g.label == label { return Seen.gesture(g) }
                        return nil
                    },
                    { event -> Seen? in
                        switch event {
                        case .recordingStarted(let r) where recording == "recording_started": return .started(r)
                        case .recordingStopped where recording == "recording_stopped": return .started(nil)
                        default: return nil
                        }
                    },
                ])
            guard case .gesture(let g) = seen[0], case .started(let r) = seen[1] else {
                throw DaemonError(message: "unexpected events")
            }
            return (g, r)
        }

        XCTAssertTrue(
            try daemon.waitFor(30) { try daemon.status().inputs?.allSatisfy { $0.state == .connected } == true })
        let inputs = try XCTUnwrap(try daemon.status().inputs)
        XCTAssertEqual(inputs.first { $0.label == "foot" }?.grabbed, true, "\(inputs)")
        // Grabbed: nobody else may take the device.
        let other = open(footNode, O_RDONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(other, 0)
        XCTAssertEqual(
            ioctl(other, UInputDevice.grab, CInt(1)), -1, "a second grab must fail while the daemon holds it")
        XCTAssertEqual(errno, EBUSY)
        close(other)

        // Press on one device starts, press on the other stops: two devices at once.
        foot.press(Self.space)
        let (footPress, started) = try gesture("foot", then: "recording_started")
        XCTAssertEqual(footPress.gesture, .press)
        XCTAssertNotNil(started)
        remote.press(Self.record)
        let (remotePress, _) = try gesture("remote", then: "recording_stopped")
        XCTAssertEqual(remotePress.gesture, .press)
        XCTAssertEqual(try daemon.status().state, .idle)

        // Long press: held past long_press_ms.
        foot.press(Self.space, holding: 1.2)
        let long = try gesture("foot")
        XCTAssertEqual(long.gesture, .longPress)
        XCTAssertEqual(long.command, "snapshot")
        XCTAssertNil(long.error)

        // Double press: two taps inside the window.
        foot.press(Self.space)
        Thread.sleep(forTimeInterval: 0.1)  // the subject: a pause between two taps inside the double-press window
        foot.press(Self.space)
        let double = try gesture("foot")
        XCTAssertEqual(double.gesture, .doublePress)
        XCTAssertEqual(double.command, "protect")

        // Unplug and plug back: missing, then connected (grabbed again), and it works.
        foot.unplug()
        try events.waitFor("input_missing foot") {
            if case .inputMissing(let s) = $0, s.label == "foot" { return true }
            return nil
        }
        let again = try UInputDevice(name: "Foot Switch", keys: [Self.space])
        XCTAssertNotNil(again.node())
        let back = try events.waitFor("input_connected foot") {
            if case .inputConnected(let s) = $0, s.label == "foot" { return s }
            return nil
        }
        XCTAssertEqual(back.grabbed, true)
        again.press(Self.space)
        XCTAssertEqual(try gesture("foot", then: "recording_started").0.gesture, .press)
        _ = try daemon.recordStop()
        XCTAssertTrue(daemon.isRunning)
    }
}
