import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// A camera that comes after the daemon (issue 59, item 2): a capture process that opens the camera's FIFO for
/// writing long after the start (as `rpicam-vid -o fifo` started by another unit would) is picked up at the next
/// device poll and recorded from its first frame. Its start used to be abandoned in open(), and that open then took
/// the first writer and closed it (`Broken pipe`). `APPLIANCE_LATE_WRITER_S` sets how late (15 s by default; 60 and
/// 300 were run by hand).
final class LateCameraTests: XCTestCase {
    /// The device watch looks for every channel's cameras: a late camera of a second channel is picked up too, and
    /// that channel records it.
    func testAnotherChannelsCameraThatComesLateIsPickedUp() throws {
        signal(SIGPIPE, SIG_IGN)
        let camera = try FifoCamera(name: "door", withWriter: false)
        let channels = """
            [[camera]]
            name = "desk"
            source = "test"
            \(camera.config)
            start_timeout_s = 2.0
            [[channel]]
            name = "room"
            cameras = ["desk"]
            [[channel]]
            name = "porch"
            cameras = ["door"]
            """
        let daemon = try DaemonProcess(extra: FifoCamera.video, cameras: channels)
        try daemon.start(timeout: 30)
        defer { daemon.stop() }
        try daemon.showingLogOnFailure(in: self) {
            XCTAssertEqual(try daemon.camera("door")?.state, "missing")
            XCTAssertEqual(try daemon.camera("door")?.channel, "porch")
            try camera.openWriter()
            camera.startFeeding(FifoScene(crossAt: 100, crossFor: 1, stampsFrameNumbers: true), first: 1, count: 200)
            XCTAssertTrue(try daemon.waitForCamera("door", "active", timeout: 15), "picked up by the device watch")
            let started = try daemon.perform(.recordStart(title: nil, channel: "porch"))
            guard case .recordingStarted(let recording) = started else { return XCTFail("record start") }
            XCTAssertEqual(recording.channel, "porch")
            Thread.sleep(forTimeInterval: 2)
            guard case .recordingStopped(let clip) = try daemon.perform(.recordStop(title: nil, channel: "porch"))
            else {
                return XCTFail("record stop")
            }
            let numbers = try FifoScene.frameNumbers(in: clip.path).filter { $0 != 0 }
            XCTAssertGreaterThan(numbers.count, 5, "the porch's clip holds the late camera's frames")
            camera.hangUp()
        }
    }

    func testAFifoCameraWhoseWriterComesLateIsRecordedFromItsFirstFrame() throws {
        signal(SIGPIPE, SIG_IGN)  // a broken pipe is a failed write here, not the end of the test process
        let delay = ProcessInfo.processInfo.environment["APPLIANCE_LATE_WRITER_S"].flatMap(Double.init) ?? 15
        let camera = try FifoCamera(name: "door", withWriter: false)
        let daemon = try DaemonProcess(extra: FifoCamera.video, cameras: camera.config + "\nstart_timeout_s = 2.0")
        let started = Date()
        try daemon.start(timeout: 30)
        try daemon.showingLogOnFailure(in: self) {
            let events = try TypedEvents(daemon, timeout: delay + 30)
            XCTAssertEqual(try daemon.cameras().cameras.first?.state, "missing")
            let recording = try daemon.recordStart()

            Thread.sleep(until: started.addingTimeInterval(delay))  // the scenario: the writer comes this late
            try camera.openWriter()
            let frames = 40
            camera.startFeeding(FifoScene(crossAt: 100, crossFor: 1, stampsFrameNumbers: true), first: 1, count: frames)
            let cameToIt = Date()
            let switched = try events.waitFor("camera_switched") { event -> CameraSwitched? in
                if case .cameraSwitched(let s) = event, s.to == "door" { return s }
                return nil
            }
            let pickedUp = Date().timeIntervalSince(cameToIt)
            XCTAssertNil(switched.from)
            XCTAssertTrue(daemon.waitFor(10) { !camera.isFeeding }, "the writer wrote its \(frames) frames")
            XCTAssertFalse(camera.writeFailed, "the writer's pipe was never broken")
            camera.hangUp()
            // Its stream ended: it waits for the next writer, and says so once.
            XCTAssertTrue(try daemon.waitFor(15) { try daemon.cameras().cameras.first?.state == "missing" })
            let clip = try daemon.recordStop()
            XCTAssertEqual(clip.id, recording.id)
            XCTAssertEqual(try MediaProbe(clip.path).decodeErrors(), "", clip.path)
            // The filler, the camera and the filler again, without a hole (issue 59, item 3).
            let gap = try MediaProbe(clip.path).largestVideoGap()
            XCTAssertLessThanOrEqual(gap.seconds, 0.2 + 0.0005, "a hole of \(gap.seconds) s at \(gap.at) s")

            // The clip holds the filler (frame number 0: black), then every frame the writer wrote, in order, from
            // its first, then the filler again.
            let numbers = try FifoScene.frameNumbers(in: clip.path).filter { $0 != 0 }
            XCTAssertEqual(numbers.first, 1, "from the writer's first frame")
            XCTAssertEqual(Array(Set(numbers)).sorted(), Array(1...frames), "every frame the writer wrote")
            XCTAssertEqual(numbers, numbers.sorted(), "in order")
            XCTAssertEqual(
                daemon.log.components(separatedBy: "it starts when one writes").count - 1, 2,
                "at start and after its end")
            XCTAssertEqual(daemon.log.components(separatedBy: "a writer opened").count - 1, 1)
            print(
                String(
                    format:
                        """
                        LateCameraTests: writer %.0f s after the start, picked up %.1f s after it came; %d of %d \
                        frames recorded (%d repeated); largest gap %.3f s
                        """,
                    delay, pickedUp, Set(numbers).count, frames, numbers.count - Set(numbers).count, gap.seconds))
        }
    }
}
