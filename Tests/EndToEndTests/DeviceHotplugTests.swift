import ApplianceApp
import ApplianceProtocol
import Foundation
import XCTest

/// Devices appearing and disappearing while the daemon runs, as GStreamer's device monitor reports them.
final class DeviceHotplugTests: XCTestCase {
    func testPluggingAndUnpluggingADeviceEmitsEventsAndUpdatesTheList() throws {
        guard PulseAudioServer.isInstalled else {
            throw XCTSkip("pulseaudio is not installed (packaging/install-deps.sh --test)")
        }
        let pulse = try PulseAudioServer()
        try pulse.start()
        let daemon = try DaemonProcess()
        daemon.environment = ["PULSE_SERVER": pulse.serverAddress]
        try daemon.start()
        defer { daemon.stop() }
        let listener = try EventListener(daemon, timeout: 15)
        let deviceName = "Monitor of USB-Mic"
        func listed() throws -> [DeviceInfo] {
            try daemon.cameras().devices.filter { $0.name == deviceName }
        }
        XCTAssertEqual(try listed().count, 0)

        let module = try pulse.plugSource(description: "USB-Mic")
        let added = try listener.waitFor("device_added") { $0["name"] as? String == deviceName }
        XCTAssertEqual(added["device_class"] as? String, "Audio/Source")
        XCTAssertTrue((added["caps"] as? String ?? "").contains("audio/x-raw"), "\(added)")
        XCTAssertEqual(try listed().first?.deviceClass, "Audio/Source", "cameras lists the new device with its class")
        XCTAssertTrue((try listed().first?.caps ?? "").contains("audio/x-raw"), "and its caps")

        try pulse.unplug(module)
        try listener.waitFor("device_removed") { $0["name"] as? String == deviceName }
        XCTAssertEqual(try listed().count, 0, "an unplugged device leaves the list")
        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(try daemon.status().activeCamera, "main", "capture carries on")
    }
}
