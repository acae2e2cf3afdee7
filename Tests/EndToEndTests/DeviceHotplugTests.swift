import ApplianceCore
import Foundation
import XCTest

/// Devices appearing and disappearing while the daemon runs, as GStreamer's device monitor reports them.
final class DeviceHotplugTests: XCTestCase {
    /// Reads events until one named `name` whose device is `device` arrives (the client's time-out fails the test).
    private func waitForEvent(_ listener: ControlClient, _ name: String, device: String) throws -> [String: Any] {
        while true {
            let event = try XCTUnwrap(try JSONSerialization.jsonObject(with: listener.readLine()) as? [String: Any])
            let data = event["data"] as? [String: Any] ?? [:]
            if event["event"] as? String == name, data["name"] as? String == device { return data }
        }
    }

    func testPluggingAndUnpluggingADeviceEmitsEventsAndUpdatesTheList() throws {
        guard PulseAudioServer.isInstalled else { throw XCTSkip("pulseaudio is not installed (packaging/install-deps.sh --test)") }
        let pulse = try PulseAudioServer()
        try pulse.start()
        let daemon = try DaemonProcess()
        daemon.environment = ["PULSE_SERVER": pulse.serverAddress]
        try daemon.start()
        defer { daemon.stop() }
        let listener = try ControlClient(path: daemon.socketPath, timeout: 15)
        XCTAssertEqual(try listener.call("events")["ok"] as? Bool, true)
        let deviceName = "Monitor of USB-Mic"
        func listed() throws -> [[String: Any]] {
            (try daemon.result("cameras")["devices"] as? [[String: Any]] ?? []).filter { $0["name"] as? String == deviceName }
        }
        XCTAssertEqual(try listed().count, 0)

        let module = try pulse.plugSource(description: "USB-Mic")
        let added = try waitForEvent(listener, "device_added", device: deviceName)
        XCTAssertEqual(added["device_class"] as? String, "Audio/Source")
        XCTAssertTrue((added["caps"] as? String ?? "").contains("audio/x-raw"), "\(added)")
        XCTAssertEqual(try listed().first?["device_class"] as? String, "Audio/Source", "cameras lists the new device with its class")
        XCTAssertTrue((try listed().first?["caps"] as? String ?? "").contains("audio/x-raw"), "and its caps")

        try pulse.unplug(module)
        _ = try waitForEvent(listener, "device_removed", device: deviceName)
        XCTAssertEqual(try listed().count, 0, "an unplugged device leaves the list")
        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(try daemon.result("status")["active_camera"] as? String, "main", "capture carries on")
    }
}
