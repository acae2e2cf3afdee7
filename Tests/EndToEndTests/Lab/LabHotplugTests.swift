import ApplianceProtocol
import Foundation
import XCTest

/// Unplugging real devices while recording, in the VM lab: the recording goes on (over the filler for a camera,
/// without sound for a microphone), and a camera that comes back is used again by itself.
final class LabHotplugTests: XCTestCase {
    func testCameraUnplugAndReplugWhileRecording() throws {
        try Lab.require()
        let node = try Lab.vivid()
        try Lab.moveVividPicture(node)
        let stable = try Lab.vividStablePath()
        let daemon = try DaemonProcess(extra: LabCameraTests.config(width: 320, height: 180, framerate: 10),
                                       cameras: LabCameraTests.camera(stable), root: Lab.scratch)
        try daemon.start(timeout: 180)
        defer { daemon.stop() }
        let events = try TypedEvents(daemon, timeout: 60)
        let started = try daemon.recordStart(title: "unplugged")
        Thread.sleep(forTimeInterval: 2)

        try Lab.setBound(false, driver: "vivid", device: "vivid.0")
        try events.waitFor("camera_missing") { if case .cameraMissing(let d) = $0, d.camera == "vivid" { return true }; return nil }
        let missing = try XCTUnwrap(try daemon.cameras().cameras.first)
        XCTAssertEqual(missing.state, "missing")
        // Known: GStreamer's v4l2 buffer pool keeps its dup of the vanished node open (one fd per unplug; the
        // replugged camera comes back as another videoN, which the by-path link follows). Printed, not asserted.
        if let pid = daemon.pid { print("lab: after the unplug the daemon holds \(Lab.openDevices(of: pid, prefix: "/dev/video"))") }
        XCTAssertEqual(try daemon.status().recording?.id, started.id, "the recording goes on without its camera")

        try Lab.setBound(true, driver: "vivid", device: "vivid.0")
        do {
            try events.waitFor("camera_switched to vivid") { if case .cameraSwitched(let s) = $0, s.to == "vivid" { return true }; return nil }
        } catch {
            let nodes = (try? FileManager.default.contentsOfDirectory(atPath: "/dev").filter { $0.hasPrefix("video") }) ?? []
            XCTFail("\(error); nodes now: \(nodes); cameras: \(String(describing: try? daemon.cameras().cameras)); log: \(daemon.log.suffix(3000))")
            throw error
        }
        XCTAssertEqual(try daemon.cameras().cameras.first?.state, "active")
        try Lab.moveVividPicture(try Lab.vivid())
        Thread.sleep(forTimeInterval: 2)

        let clip = try daemon.recordStop()
        XCTAssertEqual(clip.id, started.id)
        let probe = try MediaProbe(clip.path)
        XCTAssertEqual(try probe.decodeErrors(), "")
        let pts = try probe.videoPTS()
        let gaps = zip(pts, pts.dropFirst()).filter { $1 - $0 > 0.15 }.map { "\($0)→\($1)" }
        let frames = try DecodedFrames(clip.path, width: 320, height: 180)
        let flat = frames.flatFrames
        print("lab: \(pts.count) frames, gaps \(gaps), flat frames \(flat.first ?? -1)…\(flat.last ?? -1) (\(flat.count))")
        // Known: when the camera dies, the filler takes over from the selector's next switch, and its frames until then
        // are not output: under TCG that has left one frame missing (2.0→2.2 at 10 fps) in one run of several. One such
        // hole of at most two frame intervals is allowed; anything longer, or more than one, is a gap.
        let holes = zip(pts, pts.dropFirst()).filter { $1 - $0 > 0.15 }
        XCTAssertTrue(holes.count <= 1 && holes.allSatisfy { $1 - $0 <= 0.25 }, "gaps in the picture: \(gaps); log: \(daemon.log.suffix(4000))")
        try LabCameraTests.assertRate(probe, framerate: 10)
        XCTAssertFalse(flat.isEmpty, "the filler while the camera was away")
        XCTAssertGreaterThan(flat.first ?? 0, 5, "the camera's picture before the unplug")
        XCTAssertLessThan(flat.last ?? Int.max, frames.frames.count - 5, "the camera's picture again after the replug")
    }
}
