import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// The output never waits on a camera (issue 59, item 3): whatever a camera's start, stop or restart does, the
/// filler or the other camera flows at the output's frame rate. A recording across a start that blocks in its
/// source (abandoned), the camera it came from taken back, and that camera's stream ending has no hole larger than
/// two frame intervals, by its own timestamps.
final class OutputFlowTests: XCTestCase {
    func testARecordingAcrossAStuckStartARestartAndACameraThatEndsHasNoGap() throws {
        let door = try FifoCamera(name: "door")
        let port = try UnansweredPort()
        let daemon = try DaemonProcess(
            extra: FifoCamera.video,
            cameras: door.config + """

                [[camera]]
                name = "gate"
                source = "pipeline"
                pipeline = "tcpclientsrc host=127.0.0.1 port=\(port.port) ! rawvideoparse width=320 height=240 \
                format=i420 framerate=10/1"
                start_timeout_s = 2.0
                """)
        door.startFeeding(FifoScene(crossAt: 100, crossFor: 1))
        try daemon.start()
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertEqual(try daemon.cameras().active, "door")
            let events = try TypedEvents(daemon, timeout: 30)
            let started = try daemon.recordStart()
            try daemon.waitForMoreVideo(1)

            // A switch to a camera whose start blocks: the filler flows for the 2 s until it is abandoned, then the
            // camera it came from is started again.
            XCTAssertEqual(daemon.errorCode(.switchCamera(.named("gate"))), "unavailable")
            XCTAssertEqual(try daemon.cameras().active, "door")
            try daemon.waitForMoreVideo(1)

            // The camera's stream ends mid-recording: the filler takes over.
            door.hangUp()
            let failed = try events.waitFor("camera_failed") { event -> CameraFailure? in
                if case .cameraFailed(let f) = event, f.camera == "door" { return f }
                return nil
            }
            XCTAssertEqual(failed.camera, "door")
            try daemon.waitForMoreVideo(2)
            let clip = try daemon.recordStop()
            XCTAssertEqual(clip.id, started.id)
            let probe = try MediaProbe(clip.path)
            XCTAssertEqual(try probe.decodeErrors(), "", clip.path)
            let gap = try probe.largestVideoGap()
            XCTAssertLessThanOrEqual(
                gap.seconds, 0.2 + 0.0005, "a hole of \(gap.seconds) s at \(gap.at) s in \(clip.path)")
            XCTAssertEqual(
                try ServiceManagerTests.value(try daemon.metrics(), "appliance_stalls_total"), 0,
                "the output never stalled")
            print(
                String(
                    format: "OutputFlowTests: %d frames, largest gap %.3f s (at %.1f s)", clip.videoFrames, gap.seconds,
                    gap.at))
        }
    }

    /// A file camera's frames are stamped by their count, not by when they came. With no sink that waits on the
    /// clock (no web page, no preview: a headless dashcam), a writer that catches up in a burst (ffmpeg `-re` after
    /// it was kept waiting) once put the output seconds ahead of the clock: the burst took a second of real time and
    /// eight of the clip's, and when the camera then ended the filler's frames fell in slots already taken and were
    /// dropped until the clock caught up (the chaos soak: holes of 5 to 32 s, the output "stalled"). A camera's
    /// frames must come at the pace they are stamped for, so a clip's length is the time it recorded.
    func testACameraThatBurstsAndEndsLeavesNoHoleWithNothingWaitingOnTheClock() throws {
        let door = try FifoCamera(name: "door")
        let daemon = try DaemonProcess(extra: FifoCamera.video + "\n[web]\nlisten = \"off\"", cameras: door.config)
        try daemon.start()
        try daemon.showingLogOnFailure(in: self) {
            let events = try TypedEvents(daemon, timeout: 30)
            let started = try daemon.recordStart()
            let wallStart = Date()
            // 8 s of frames as fast as they are read
            door.startFeeding(FifoScene(crossAt: 1000, crossFor: 1), ahead: 80)
            XCTAssertTrue(Poll.until(timeout: 30) { door.framesWritten >= 90 }, "the burst and a second more were read")
            door.hangUp()
            _ = try events.waitFor("camera_failed") { event -> CameraFailure? in
                if case .cameraFailed(let f) = event, f.camera == "door" { return f }
                return nil
            }
            try daemon.waitForMoreVideo(2)
            let clip = try daemon.recordStop()
            let wall = Date().timeIntervalSince(wallStart)
            XCTAssertEqual(clip.id, started.id)
            let probe = try MediaProbe(clip.path)
            XCTAssertEqual(try probe.decodeErrors(), "", clip.path)
            let gap = try probe.largestVideoGap()
            XCTAssertLessThanOrEqual(
                gap.seconds, 0.2 + 0.0005, "a hole of \(gap.seconds) s at \(gap.at) s in \(clip.path)")
            XCTAssertEqual(
                Double(clip.durationMs) / 1000, wall, accuracy: 1.0, "the clip is as long as the time it recorded")
            XCTAssertEqual(
                try ServiceManagerTests.value(try daemon.metrics(), "appliance_stalls_total"), 0,
                "the output never stalled")
            print(
                String(
                    format: "OutputFlowTests (burst): %d frames, %.1f s for %.1f s recorded, largest gap %.3f s",
                    clip.videoFrames, Double(clip.durationMs) / 1000, wall, gap.seconds))
        }
    }
}
