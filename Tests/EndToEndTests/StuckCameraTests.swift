import ApplianceProtocol
import Foundation
import TestSupport
import XCTest
import ApplianceBase

/// Cameras whose start never returns (issue 44): a source can block inside its state change — filesrc opening a
/// FIFO that has no writer, tcpclientsrc connecting to a camera that does not answer, a wedged USB driver. Such a
/// start is abandoned after `[[camera]] start_timeout_s` on a thread of its own, the camera is failed (status, `ctl
/// cameras`, `camera_failed`), the output goes on with the next camera or the black filler, and SIGTERM still stops
/// the daemon within 10 s with the clip in progress saved.
final class StuckCameraTests: XCTestCase {
    /// How long a stop may take, whatever a camera does (the daemon's bound), and a little for the test's own polling.
    static let stopBound: TimeInterval = 10.5

    /// Stops the daemon with SIGTERM; returns how long it took and its exit status.
    func timedStop(_ daemon: DaemonProcess) -> (seconds: TimeInterval, status: Int32) {
        let asked = Date()
        let status = daemon.stop(timeout: 30)
        return (Date().timeIntervalSince(asked), status)
    }

    func testACameraWhoseStreamEndsWhileRecordingKeepsTheClipAndStillStopsInTime() throws {
        let camera = try FifoCamera(name: "door")
        let daemon = try DaemonProcess(extra: FifoCamera.video, cameras: camera.config)
        camera.startFeeding(FifoScene(crossAt: 1, crossFor: 2))
        try daemon.start()
        try daemon.showingLogOnFailure(in: self) {
            let events = try TypedEvents(daemon, timeout: 30)
            let started = try daemon.recordStart(title: "door")
            XCTAssertTrue(try daemon.waitFor(10) { (try daemon.cameras().cameras.first?.framesIn ?? 0) >= 30 })

            // The writer goes: the stream ends, the output goes on with the filler, and the camera is tried again —
            // its filesrc now blocks in open() until a writer comes, which none does.
            camera.hangUp()
            let failed = try events.waitFor("camera_failed") { if case .cameraFailed(let f) = $0 { return f }; return nil }
            XCTAssertEqual(failed.camera, "door")
            XCTAssertTrue(try daemon.waitFor(15) { try daemon.cameras().cameras.first?.state == "starting" },
                          "tried again: \(String(describing: try? daemon.cameras()))")

            let stop = timedStop(daemon)
            XCTAssertLessThan(stop.seconds, Self.stopBound, "SIGTERM while the camera's start is stuck in open()")
            XCTAssertEqual(stop.status, 0)
            XCTAssertTrue(daemon.log.contains("finalised"), "the clip was finalised before exit")

            // The clip, finalised and moved into recordings/, holds the camera's frames and then the filler's, whole.
            let path = try XCTUnwrap(daemon.recordings().first { $0.hasSuffix(started.id + ".mp4") }, "\(daemon.recordings())")
            XCTAssertEqual(try MediaProbe(path).decodeErrors(), "", path)
            let frames = try MediaProbe(path).video?.frames ?? 0
            XCTAssertGreaterThanOrEqual(frames, 30)
            print("StuckCameraTests: stopped in \(String(format: "%.1f", stop.seconds)) s with the camera's start stuck; clip of \(frames) frames")
        }
    }

    func testACameraThatNeverGetsAWriterIsFailedAndTheFillerIsRecorded() throws {
        let camera = try FifoCamera(name: "door", withWriter: false)
        let daemon = try DaemonProcess(extra: FifoCamera.video, cameras: camera.config + "\nstart_timeout_s = 3.0")
        try daemon.start(timeout: 30)
        try daemon.showingLogOnFailure(in: self) {
            // Ready on the filler: the camera's start was abandoned after 3 s, and says so.
            let door = try XCTUnwrap(try daemon.cameras().cameras.first)
            XCTAssertEqual(door.state, "error")
            XCTAssertEqual(door.detail, "camera 'door' start did not return within 3 s (abandoned on its thread)")
            XCTAssertNil(try daemon.cameras().active)
            XCTAssertTrue(daemon.log.contains("camera 'door' failed to start: camera 'door' start did not return within 3 s"), daemon.log)

            // It is not started again while that start is stuck: one thread in open(), not one per retry.
            let result = try daemon.recordStart()
            // Three seconds of the filler recorded: three device polls, the backoff long past.
            XCTAssertTrue(try daemon.waitFor(15) { (try daemon.status().recording?.videoFrames ?? 0) >= 30 })
            let clip = try daemon.recordStop()
            XCTAssertEqual(try daemon.cameras().cameras.first?.state, "error")
            XCTAssertEqual(daemon.log.components(separatedBy: "camera 'door' failed to start").count - 1, 1, "tried once")
            XCTAssertEqual(clip.id, result.id)
            XCTAssertEqual(try MediaProbe(clip.path).decodeErrors(), "", clip.path)
            XCTAssertGreaterThanOrEqual(clip.videoFrames, 25, "the filler was recorded: \(clip)")

            let stop = timedStop(daemon)
            XCTAssertLessThan(stop.seconds, Self.stopBound)
            XCTAssertEqual(stop.status, 0)
        }
    }

    func testANetworkSourceThatBlocksInItsStateChangeHandsOverToTheNextCamera() throws {
        let port = try UnansweredPort()
        let daemon = try DaemonProcess(extra: FifoCamera.video, cameras: """
            [[camera]]
            name = "gate"
            source = "pipeline"
            pipeline = "tcpclientsrc host=127.0.0.1 port=\(port.port) ! rawvideoparse width=320 height=240 format=i420 framerate=10/1"
            start_timeout_s = 2.0
            [[camera]]
            name = "yard"
            source = "test"
            pattern = "ball"
            """)
        try daemon.start(timeout: 30)
        try daemon.showingLogOnFailure(in: self) {
            let cameras = try daemon.cameras()
            XCTAssertEqual(cameras.active, "yard", "the next camera took over")
            XCTAssertEqual(cameras.cameras.first?.state, "error")
            XCTAssertEqual(cameras.cameras.first?.detail, "camera 'gate' start did not return within 2 s (abandoned on its thread)")
            // A switch back to it is refused at once with the reason, and the output stays on the camera that works.
            XCTAssertEqual(daemon.errorCode(.switchCamera(.named("gate"))), "unavailable")
            XCTAssertEqual(try daemon.cameras().active, "yard")
            let text = try daemon.ctl(["cameras"])
            XCTAssertTrue(text.stdout.contains("gate") && text.stdout.contains("did not return within 2 s"), text.stdout)

            let stop = timedStop(daemon)
            XCTAssertLessThan(stop.seconds, Self.stopBound)
            XCTAssertEqual(stop.status, 0)
        }
    }
}
