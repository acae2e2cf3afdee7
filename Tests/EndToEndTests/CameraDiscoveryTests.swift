import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// `ctl cameras discover` (issue 48, part 4): a recorder in a network namespace of its own finds, by WS-Discovery
/// multicast over a veth pair, a second appliance serving as an ONVIF camera on this host; with the camera's account
/// it gets its stream address (GetCapabilities, GetProfiles, GetStreamUri with a PasswordDigest), and records the
/// camera at that address.
final class CameraDiscoveryTests: XCTestCase {
    func testARecorderFindsASecondApplianceByONVIFAndRecordsItAtTheAddressItGave() throws {
        let net = try VethNetwork()
        defer { net.remove() }
        let (device, webPort, rtspPort) = try ONVIFTests.startDevice(host: net.deviceAddress, discovery: "")
        defer { device.stop() }
        XCTAssertTrue(try device.waitFor(20) { try device.status().onvif?.discovery == .serving }, device.log)
        XCTAssertEqual(
            try device.switchCamera(.named("ball")).active, "ball", "a moving picture to tell from the filler")
        let password = FileManager.default.temporaryDirectory.appendingPathComponent(
            "camera-\(UUID().uuidString.prefix(8))"
        ).path
        try (ONVIFTests.password + "\n").write(toFile: password, atomically: true, encoding: .utf8)
        chmod(password, 0o600)
        defer { try? FileManager.default.removeItem(atPath: password) }
        let expected = "rtsp://\(net.deviceAddress):\(rtspPort)/live"

        let cameras = """
            [[camera]]
            name = "main"
            source = "test"
            [[camera]]
            name = "door"
            source = "rtsp"
            url = "\(expected)"
            username = "appliance"
            password_file = "\(password)"
            """
        let recorder = try DaemonProcess(extra: "[video]\nwidth = 320\nheight = 240\n", cameras: cameras)
        recorder.launcher = ["/usr/sbin/ip", "netns", "exec", net.namespace]
        try recorder.start()
        defer { recorder.stop() }
        try recorder.showingLogOnFailure(in: self) {
            for bad in [["--seconds", "100"], ["--password-file", password]] {
                let refused = try recorder.ctl(["cameras", "discover"] + bad)
                XCTAssertNotEqual(refused.status, 0, "\(bad)")
                XCTAssertEqual(
                    refused.stderr.split(separator: "\n").filter { !$0.isEmpty }.count <= 3, true, refused.stderr)
            }
            XCTAssertTrue(
                try recorder.ctl(["cameras", "discover", "--seconds", "100"]).stderr.contains(
                    "seconds must be 0.5 to 30"))
            let anonymous = try recorder.ctl(["cameras", "discover", "--seconds", "2"])
            XCTAssertEqual(anonymous.status, 0, anonymous.stderr)
            let deviceService = "http://\(net.deviceAddress):\(webPort)/onvif/device_service"
            XCTAssertTrue(anonymous.stdout.contains("front door"), anonymous.stdout)
            XCTAssertTrue(anonymous.stdout.contains(deviceService), anonymous.stdout)
            XCTAssertTrue(anonymous.stdout.contains("give --user"), anonymous.stdout)

            let found = try recorder.ctl(["cameras", "discover", "--user", "appliance", "--password-file", password])
            XCTAssertEqual(found.status, 0, found.stderr)
            print("CameraDiscoveryTests: ctl cameras discover --user appliance said:\n\(found.stdout)")
            XCTAssertTrue(found.stdout.contains(expected), "the stream address, as url takes it: \(found.stdout)")
            XCTAssertTrue(found.stdout.contains("H264 320x240"), found.stdout)

            let refused = try recorder.perform(
                .discoverCameras(CameraDiscoveryRequest(username: "appliance", password: Secret("wrong"), seconds: 2)))
            guard case .discovered(let discovery) = refused else { return XCTFail("\(refused)") }
            let camera = try XCTUnwrap(discovery.cameras.first { $0.address == deviceService })
            XCTAssertTrue(camera.streams.isEmpty)
            XCTAssertNotNil(camera.error, "a refused account is said: \(camera)")
            XCTAssertFalse(recorder.log.contains(ONVIFTests.password), "the password is logged nowhere")

            XCTAssertEqual(try recorder.switchCamera(.named("door")).active, "door")
            let clip = try recorder.recordDecodable(seconds: 2)
            XCTAssertGreaterThan(
                try ClipPicture.grayLevels(clip, at: 1), 5, "the second appliance's picture, not the filler")
        }
    }
}
