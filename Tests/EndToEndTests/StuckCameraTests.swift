import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// Cameras whose start never returns (issue 44): a source can block inside its state change — tcpclientsrc
/// connecting to a camera that does not answer, a wedged USB driver; filesrc opening a FIFO that has no writer did,
/// until such a camera was started only once its writer had written (issue 59). Such a start is abandoned after
/// `[[camera]] start_timeout_s` on a thread of its own, the camera is failed (status, `ctl
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

            // The writer goes: the stream ends, the output goes on with the filler, and the camera waits for the
            // next writer (missing) instead of being started again: its filesrc would block in open().
            camera.hangUp()
            let failed = try events.waitFor("camera_failed") {
                if case .cameraFailed(let f) = $0 { return f }
                return nil
            }
            XCTAssertEqual(failed.camera, "door")
            XCTAssertTrue(
                try daemon.waitFor(15) { try daemon.cameras().cameras.first?.state == "missing" },
                "waits for a writer: \(String(describing: try? daemon.cameras()))")
            XCTAssertEqual(try daemon.cameras().cameras.first?.detail, "no writer on the FIFO \(camera.path)")

            let stop = timedStop(daemon)
            XCTAssertLessThan(stop.seconds, Self.stopBound, "SIGTERM while the camera's start is stuck in open()")
            XCTAssertEqual(stop.status, 0)
            XCTAssertTrue(daemon.log.contains("finalised"), "the clip was finalised before exit")

            // The clip, finalised and moved into recordings/, holds the camera's frames and then the filler's, whole.
            let path = try XCTUnwrap(
                daemon.recordings().first { $0.hasSuffix(started.id + ".mp4") }, "\(daemon.recordings())")
            XCTAssertEqual(try MediaProbe(path).decodeErrors(), "", path)
            let frames = try MediaProbe(path).video?.frames ?? 0
            XCTAssertGreaterThanOrEqual(frames, 30)
            print(
                """
                StuckCameraTests: stopped in \(String(format: "%.1f", stop.seconds)) s while the camera waited for \
                a writer; clip of \(frames) frames
                """
            )
        }
    }

    func testACameraThatNeverGetsAWriterIsMissingAndTheFillerIsRecorded() throws {
        let camera = try FifoCamera(name: "door", withWriter: false)
        let daemon = try DaemonProcess(extra: FifoCamera.video, cameras: camera.config + "\nstart_timeout_s = 3.0")
        try daemon.start(timeout: 30)
        try daemon.showingLogOnFailure(in: self) {
            // Ready on the filler: nothing wrote to the FIFO within 3 s, so its filesrc was never started (it would
            // have blocked in open()); the camera waits for a writer.
            let door = try XCTUnwrap(try daemon.cameras().cameras.first)
            XCTAssertEqual(door.state, "missing")
            XCTAssertEqual(door.detail, "no writer on the FIFO \(camera.path) (none wrote within 3 s)")
            XCTAssertNil(try daemon.cameras().active)
            XCTAssertFalse(daemon.log.contains("abandoned on its thread"), "no thread is left in open()")

            // It is not started again until a writer writes: one line, not one per device poll.
            let result = try daemon.recordStart()
            // Three seconds of the filler recorded: at least one device poll.
            XCTAssertTrue(try daemon.waitFor(15) { (try daemon.status().recording?.videoFrames ?? 0) >= 30 })
            let clip = try daemon.recordStop()
            XCTAssertEqual(try daemon.cameras().cameras.first?.state, "missing")
            XCTAssertEqual(daemon.log.components(separatedBy: "it starts when one writes").count - 1, 1, "said once")
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
        let daemon = try DaemonProcess(
            extra: FifoCamera.video,
            cameras: """
                [[camera]]
                name = "gate"
                source = "pipeline"
                pipeline = "tcpclientsrc host=127.0.0.1 port=\(port.port) ! rawvideoparse width=320 height=240 \
                format=i420 framerate=10/1"
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
            XCTAssertEqual(
                cameras.cameras.first?.detail, "camera 'gate' start did not return within 2 s (abandoned on its thread)"
            )
            // A switch back to it is refused at once with the reason, and the output stays on the camera that works.
            XCTAssertEqual(daemon.errorCode(.switchCamera(.named("gate"))), "unavailable")
            XCTAssertEqual(try daemon.cameras().active, "yard")
            let text = try daemon.ctl(["cameras"])
            XCTAssertTrue(
                text.stdout.contains("gate") && text.stdout.contains("did not return within 2 s"), text.stdout)

            let stop = timedStop(daemon)
            XCTAssertLessThan(stop.seconds, Self.stopBound)
            XCTAssertEqual(stop.status, 0)
        }
    }
}
