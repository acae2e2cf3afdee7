import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// A real V4L2 driver (vivid, shaped like a webcam: discrete sizes 320x180…3840x2160, fewer frames per second the
/// larger) in the VM lab: the camera starts in a mode that gives the configured size and rate, says which, and the
/// file holds its moving picture — not the filler, and (but for TCG's timing jitter) no frame repeated.
final class LabCameraTests: XCTestCase {
    /// Small sizes and rates: under TCG the guest runs tens of times slower than the host.
    static func config(width: Int, height: Int, framerate: Int, mode: String? = nil) -> String {
        """
        [video]
        width = \(width)
        height = \(height)
        framerate = \(framerate)
        bitrate_kbps = 500
        speed_preset = "ultrafast"
        [web]
        listen = "off"
        """
    }

    static func camera(_ node: String, mode: String? = nil) -> String {
        """
        [[camera]]
        name = "vivid"
        source = "v4l2"
        device = "\(node)"
        \(mode.map { "mode = \"\($0)\"" } ?? "")
        """
    }

    func daemon(width: Int, height: Int, framerate: Int, mode: String? = nil) throws -> DaemonProcess {
        let node = try Lab.vivid()
        try Lab.moveVividPicture(node)
        let daemon = try DaemonProcess(
            extra: Self.config(width: width, height: height, framerate: framerate),
            cameras: Self.camera(node, mode: mode), root: Lab.scratch)
        try daemon.start(timeout: 180)
        return daemon
    }

    /// Records `seconds` and checks the file: the configured size and rate, the camera's picture in every frame,
    /// and no frame repeated (vivid's picture moves every frame).
    func recordAndCheck(_ daemon: DaemonProcess, width: Int, height: Int, framerate: Int, seconds: Double = 4) throws
        -> MediaProbe
    {
        let lateBefore = try Self.framesRepeated(daemon)
        _ = try daemon.recordStart(title: "lab \(width)x\(height)@\(framerate)")
        try daemon.waitUntilRecorded(seconds)
        let clip = try daemon.recordStop()
        let cameraLate = try Self.framesRepeated(daemon) - lateBefore
        let probe = try MediaProbe(clip.path)
        let video = try XCTUnwrap(probe.video)
        XCTAssertEqual(video.width, width)
        XCTAssertEqual(video.height, height)
        XCTAssertEqual(try probe.decodeErrors(), "")
        try LabCameraTests.assertRate(probe, framerate: Double(framerate))
        let frames = try DecodedFrames(clip.path, width: width, height: height)
        XCTAssertGreaterThanOrEqual(
            Double(frames.frames.count), Double(framerate) * (seconds - 1), "frames in \(seconds) s")
        XCTAssertEqual(frames.flatFrames, [], "frames showing the filler instead of the camera")
        // Under TCG vivid's frame timing jitters, and on a slow or busy host the guest cannot draw every frame in
        // time (9 of 61 at an exact 15 fps on one CI machine): a frame late by more than the slack between the
        // camera's rate and the configured one is repeated by the camera's rate keeper, which counts it. Those are
        // the camera's; a repeat the daemon does not account for is the graph's, and at most 5 % may be (the
        // host's tests, on a source that is never late, allow none).
        let repeats = frames.repeatedFrames
        print(
            """
            lab: \(width)x\(height)@\(framerate): \(repeats.count) of \(frames.frames.count) frames repeat the one \
            before; the camera was late \(cameraLate) times
            """
        )
        XCTAssertLessThanOrEqual(
            Double(max(0, repeats.count - Int(cameraLate))), 0.05 * Double(frames.frames.count),
            "frames repeating the one before: \(repeats) of \(frames.frames.count), the camera late \(cameraLate) times"
        )
        return probe
    }

    /// Frames the camera's rate keeper has repeated since the daemon started (the camera late).
    static func framesRepeated(_ daemon: DaemonProcess) throws -> UInt64 {
        try XCTUnwrap(try daemon.cameras().cameras.first?.framesRepeated, "frames_repeated in the cameras report")
    }

    /// The configured rate, judged from the stored timestamps: the median spacing is one frame interval. Under
    /// TCG the guest's encoder may fall behind and its queue drop a frame now and then (the host's tests require
    /// every frame); at most 5 % of intervals may be longer, and none by more than 3 frames.
    static func assertRate(_ probe: MediaProbe, framerate: Double, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let pts = try probe.videoPTS()
        let gaps = zip(pts, pts.dropFirst()).map { $1 - $0 }.sorted()
        guard !gaps.isEmpty else { return XCTFail("no frames", file: file, line: line) }
        XCTAssertEqual(
            gaps[gaps.count / 2], 1 / framerate, accuracy: 0.0005, "median frame interval", file: file, line: line)
        let long = gaps.filter { $0 > 1.5 / framerate }
        XCTAssertLessThanOrEqual(
            Double(long.count), 0.05 * Double(gaps.count), "intervals over 1.5 frames: \(long)", file: file, line: line)
        XCTAssertLessThanOrEqual(gaps.last ?? 0, 3.5 / framerate, "longest interval", file: file, line: line)
        XCTAssertTrue(gaps.allSatisfy { $0 > 0 }, "PTS strictly increasing", file: file, line: line)
    }

    /// 320x180 at 15 fps is one of vivid's own modes: it is asked for exactly.
    func testExactModeIsChosenAndRecorded() throws {
        try Lab.require()
        let daemon = try daemon(width: 320, height: 180, framerate: 15)
        defer { daemon.stop() }
        let camera = try XCTUnwrap(try daemon.cameras().cameras.first)
        XCTAssertEqual(camera.state, "active")
        XCTAssertEqual(camera.mode, "YUY2 320x180@15")
        XCTAssertEqual(try daemon.status().cameraModes, ["vivid": "YUY2 320x180@15"])
        XCTAssertTrue(daemon.log.contains("camera 'vivid': mode YUY2 320x180@15"), daemon.log)
        _ = try recordAndCheck(daemon, width: 320, height: 180, framerate: 15)
    }

    /// 160x90 at 8 fps is neither a vivid size nor a vivid rate: the smallest larger mode that reaches the rate
    /// (320x180), at the lowest rate above it (10), scaled down and thinned to 8. (A larger mode such as 640x360 is
    /// more than vivid can draw in time under TCG; and at exactly the camera's rate, vivid's timing jitter under
    /// TCG made videorate repeat 5 of 42 frames in the lab.)
    func testSmallestLargerModeReachingTheRate() throws {
        try Lab.require()
        let daemon = try daemon(width: 160, height: 90, framerate: 8)
        defer { daemon.stop() }
        let camera = try XCTUnwrap(try daemon.cameras().cameras.first)
        XCTAssertEqual(camera.mode?.hasSuffix(" 320x180@10"), true, "\(camera)")
        XCTAssertEqual(camera.modeReason?.hasPrefix("smallest mode reaching 160x90@8"), true, "\(camera)")
        _ = try recordAndCheck(daemon, width: 160, height: 90, framerate: 8)
    }

    /// `mode` pins the camera's mode (here faster than the configured rate, which the automatic choice would ask
    /// for exactly); the graph still delivers the configured size and rate.
    func testConfiguredModeOverridesTheChoice() throws {
        try Lab.require()
        let daemon = try daemon(width: 320, height: 180, framerate: 10, mode: "320x180@15")
        defer { daemon.stop() }
        let camera = try XCTUnwrap(try daemon.cameras().cameras.first)
        XCTAssertEqual(camera.mode, "YUY2 320x180@15", "\(camera)")
        XCTAssertEqual(camera.modeReason, "as configured (mode = \"320x180@15\")")
        _ = try recordAndCheck(daemon, width: 320, height: 180, framerate: 10)
    }

    /// `doctor` on the real device: the chosen mode, and a camera started in it.
    /// Motion detection on the real driver: vivid's picture moving sideways is motion.
    func testTheMovingPictureIsMotion() throws {
        try Lab.require()
        let node = try Lab.vivid()
        try Lab.moveVividPicture(node)
        let daemon = try DaemonProcess(
            extra: Self.config(width: 320, height: 180, framerate: 10) + "\n[motion]\nenabled = true\n",
            cameras: Self.camera(node), root: Lab.scratch)
        try daemon.start(timeout: 180)
        defer { daemon.stop() }
        let ready = Date()
        let listener = try EventListener(daemon, timeout: 90)
        // The picture moves from its first frame, so on a slow machine motion may have started before the
        // subscription (and it never ends): the status, asked after subscribing, counts an event already announced.
        let subscribed = try XCTUnwrap(try daemon.status().motion)
        if subscribed.events == 0 {
            let started = try listener.waitFor("motion_started")
            XCTAssertGreaterThan(started["peak_score"] as? Double ?? 0, 0)
        }
        let motion = try XCTUnwrap(try daemon.status().motion)
        print(
            "lab: motion \(motion.events) event(s), active \(motion.active), \(motion.framesAnalysed) frames analysed, "
                + """
                \(String(format: "%.1f", Date().timeIntervalSince(ready))) s after ready (\(subscribed.events) \
                when subscribed)
                """
        )
        XCTAssertGreaterThanOrEqual(motion.events, 1)
        XCTAssertTrue(motion.active, "the picture goes on moving")
        XCTAssertGreaterThan(motion.framesAnalysed, 0)
    }

    func testDoctorNamesTheChosenMode() throws {
        try Lab.require()
        let node = try Lab.vivid()
        let daemon = try DaemonProcess(
            extra: Self.config(width: 320, height: 180, framerate: 15), cameras: Self.camera(node), root: Lab.scratch)
        let result = try ProcessOutcome.run(
            DaemonProcess.binary, ["doctor", "--config", daemon.configPath], timeout: 180)
        let line = result.stdout.split(separator: "\n").first { $0.contains("camera vivid") }.map(String.init) ?? ""
        XCTAssertTrue(line.contains("chosen YUY2 320x180@15"), result.stdout)
        XCTAssertTrue(line.contains("PASS"), result.stdout)
    }
}
