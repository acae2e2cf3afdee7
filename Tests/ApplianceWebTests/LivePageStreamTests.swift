import ApplianceProtocol
import XCTest

@testable import ApplianceWeb

/// The live page names the RTSP URL to paste into an NVR, Home Assistant or VLC, with its clients, and says how to
/// log in without ever showing the password.
final class LivePageStreamTests: XCTestCase {
    private func status(rtsp: RTSPStatus?) -> StatusReport {
        var s = StatusReport(
            state: .idle, ready: true, recording: nil, cameras: ["cam"], activeCamera: "cam", cameraSources: [:],
            audioSource: "test", preview: "none", encoder: "x264", width: 640, height: 360, framerate: 30,
            dataDir: "/tmp", uptimeS: 1, recordingsThisRun: 0, lastError: nil, gstreamerVersion: "1.22",
            recordingsTotal: 0, databaseBytes: 0, recovery: nil,
            output: OutputStats(frames: 0, slotCollisions: 0, filledSlots: 0, missingSlots: 0, missingAtEncoder: 0),
            storage: StorageStatus(state: .ok, recordingsDir: "/tmp/r"))
        s.rtsp = rtsp
        return s
    }

    func testTheLivePageShowsTheRTSPURLAndItsClients() {
        let serving = RTSPStatus(
            state: .serving, listen: "0.0.0.0:8554", url: "rtsp://192.168.1.20:8554/live", clients: 2,
            authentication: "digest")
        let page = Pages.live(status: status(rtsp: serving), csrf: nil)
        XCTAssertTrue(
            page.contains(
                #"""
                <p id="rtsp" class="health">RTSP rtsp://192.168.1.20:8554/live (your name and password) · 2 clients</p>
                """#
            ), page)

        let open = RTSPStatus(
            state: .serving, listen: "127.0.0.1:8554", url: "rtsp://127.0.0.1:8554/live", clients: 1,
            authentication: "none")
        XCTAssertEqual(Pages.streamLine(open), "RTSP rtsp://127.0.0.1:8554/live · 1 client")
        let failed = RTSPStatus(
            state: .failed, listen: "127.0.0.1:554", error: "cannot listen on 127.0.0.1:554: Permission denied",
            authentication: "none")
        XCTAssertEqual(Pages.streamLine(failed), "RTSP failed: cannot listen on 127.0.0.1:554: Permission denied")
    }

    func testNoRTSPLineWhenItIsOff() {
        XCTAssertFalse(Pages.live(status: status(rtsp: nil), csrf: nil).contains(#"id="rtsp""#))
        XCTAssertFalse(Pages.live(status: status(rtsp: nil), csrf: nil).contains(#"id="onvif""#))
    }

    func testTheLivePageNamesTheONVIFAddress() {
        var s = status(rtsp: nil)
        s.onvif = ONVIFStatus(
            discovery: .serving, listen: "0.0.0.0:3702", deviceService: "http://192.168.1.20:8080/onvif/device_service",
            interfaces: ["eth0", "wlan0"], endpoint: "urn:uuid:x", authentication: "ws-usernametoken")
        XCTAssertTrue(
            Pages.live(status: s, csrf: nil).contains(
                #"""
                <p id="onvif" class="health">ONVIF http://192.168.1.20:8080/onvif/device_service \#
                (your name and password) · found by NVRs on eth0, wlan0</p>
                """#
            ))
        s.onvif?.discovery = .off
        XCTAssertEqual(
            Pages.onvifLine(s.onvif!),
            "ONVIF http://192.168.1.20:8080/onvif/device_service (your name and password) · discovery off")
    }
}
