import ApplianceBase
import ApplianceProtocol
import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// systemd's notify protocol, against a real datagram socket playing the service manager (`NotifyListener`):
/// READY=1 only once the socket answers, watchdog pings at least every half interval while frames flow, pings
/// stopping and WATCHDOG=trigger when a camera stalls, STOPPING=1 on SIGTERM, and none of it without
/// NOTIFY_SOCKET.
final class ServiceManagerTests: XCTestCase {
    /// 2 s: pings are due every second; systemd would act after 2 s without one.
    static let watchdogUsec = 2_000_000

    func testReadyStatusWatchdogPingsAndStopping() throws {
        let daemon = try DaemonProcess()
        let listener = try NotifyListener(directory: daemon.directory)
        defer { listener.close() }
        // When READY=1 arrives, the control socket must already answer, and say ready.
        let answeredAtReady = LockedBox<Bool?>(nil)
        let socketPath = daemon.socketPath
        listener.onMessage = { message in
            guard message.fields["READY"] == "1" else { return }
            let response = try? ControlClient(path: socketPath, timeout: 2).perform(.status)
            guard case .status(let report)? = response else { return answeredAtReady.set(false) }
            answeredAtReady.set(report.ready == true)
        }
        daemon.environment = ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "\(Self.watchdogUsec)"]
        try daemon.start()
        let readyAt = try XCTUnwrap(
            listener.wait(for: "READY", value: "1", timeout: 10), "no READY=1: \(listener.messages.map(\.text))")
        XCTAssertEqual(answeredAtReady.value, true, "READY=1 came before the socket answered status with ready = true")
        XCTAssertEqual(listener.values("READY").count, 1, "READY=1 is sent once")
        let status = try XCTUnwrap(listener.values("STATUS").last?.value)
        XCTAssertTrue(status.hasPrefix("idle · main"), status)
        // Free space joins the line once the first retention pass has measured the disk, which on a loaded
        // machine can be just after READY (a CI run sent "idle · main" first).
        XCTAssertTrue(
            daemon.waitFor(10) {
                listener.values("STATUS").contains {
                    $0.value.hasPrefix("idle · main · ") && $0.value.contains("GB free")
                }
            },
            "no free space in the status line: \(listener.values("STATUS").map(\.value))")

        // Recording: the status line says so, with the time ticking.
        _ = try daemon.recordStart()
        let recordingLine = daemon.waitFor(8) {
            listener.values("STATUS").contains {
                $0.value.hasPrefix("recording 00:00:0") && !$0.value.hasPrefix("recording 00:00:00")
            }
        }
        XCTAssertTrue(recordingLine, "no ticking recording line: \(listener.values("STATUS").map(\.value))")
        _ = try daemon.recordStop()
        XCTAssertTrue(
            daemon.waitFor(5) { listener.values("STATUS").last?.value.hasPrefix("idle") == true },
            "status line after stop: \(listener.values("STATUS").map(\.value))")

        // Pings: from READY on, never as much as a watchdog interval apart (systemd's deadline).
        daemon.waitFor(8) { listener.values("WATCHDOG").filter { $0.value == "1" }.count >= 4 }
        let pings = listener.values("WATCHDOG").filter { $0.value == "1" }.map(\.time)
        XCTAssertGreaterThanOrEqual(pings.count, 4, "pings: \(pings)")
        let gaps = zip([readyAt] + pings, pings).map { $1.timeIntervalSince($0) }
        XCTAssertLessThan(gaps.max() ?? 99, Double(Self.watchdogUsec) / 1e6, "a ping came late: gaps \(gaps)")
        XCTAssertFalse(listener.values("WATCHDOG").contains { $0.value == "trigger" }, "no stall, no trigger")
        let metrics = try daemon.metrics()
        XCTAssertGreaterThanOrEqual(try Self.value(metrics, "appliance_watchdog_pings_total"), Double(pings.count))

        // SIGTERM: STOPPING=1 first, then a clean exit.
        XCTAssertEqual(daemon.stop(), 0)
        let stopping = try XCTUnwrap(
            listener.wait(for: "STOPPING", value: "1", timeout: 2),
            "no STOPPING=1: \(listener.messages.suffix(3).map(\.text))")
        XCTAssertGreaterThan(stopping, readyAt)
        XCTAssertTrue(daemon.log.contains("stopped"), daemon.log)
    }

    /// A camera whose frames come from a FIFO that stops being written: the process is alive, the picture is not.
    func testStalledCameraStopsPingsThenTriggers() throws {
        let camera = try FifoCamera()
        let daemon = try DaemonProcess(extra: FifoCamera.video, cameras: camera.config)
        let listener = try NotifyListener(directory: daemon.directory)
        defer { listener.close() }
        daemon.environment = ["NOTIFY_SOCKET": listener.path, "WATCHDOG_USEC": "\(Self.watchdogUsec)"]
        camera.startFeeding()
        try daemon.start()
        XCTAssertNotNil(listener.wait(for: "READY", value: "1", timeout: 10))
        XCTAssertTrue(
            daemon.waitFor(10) { listener.values("WATCHDOG").filter { $0.value == "1" }.count >= 3 },
            "no pings while frames flow: \(listener.messages.map(\.text))")

        camera.stopFeeding()
        let stoppedAt = try XCTUnwrap(camera.lastFrame)
        let trigger = try XCTUnwrap(
            listener.wait(for: "WATCHDOG", value: "trigger", timeout: 10),
            "no WATCHDOG=trigger after the camera stalled: \(listener.messages.map(\.text)) \(daemon.log)")
        let pingsAfterStall = listener.values("WATCHDOG").filter { $0.value == "1" && $0.time > stoppedAt }.map {
            $0.time.timeIntervalSince(stoppedAt)
        }
        // The frames still on their way may reach two ticks (a FIFO camera's frames leave at their time on the clock,
        // up to a frame or two behind its writer); after that, nothing until the trigger.
        XCTAssertLessThanOrEqual(pingsAfterStall.count, 2, "pings went on after the frames stopped: \(pingsAfterStall)")
        XCTAssertTrue(pingsAfterStall.allSatisfy { $0 < Double(Self.watchdogUsec) / 1e6 }, "\(pingsAfterStall)")
        XCTAssertGreaterThan(
            trigger, listener.values("WATCHDOG").filter { $0.value == "1" }.last!.time,
            "the trigger follows the last ping")
        XCTAssertTrue(
            listener.values("STATUS").contains { $0.value.hasPrefix("STALLED: no output frame") },
            "\(listener.values("STATUS").map(\.value))")
        let metrics = try daemon.metrics()
        XCTAssertEqual(try Self.value(metrics, "appliance_stalled"), 1)
        XCTAssertEqual(try Self.value(metrics, "appliance_stalls_total"), 1)
        XCTAssertTrue(daemon.log.contains("stalled: no output frame"), daemon.log)

        // The daemon itself is still up and answering (systemd, not the daemon, decides to restart it); when the
        // camera delivers again, frames flow and the pings resume.
        XCTAssertTrue(daemon.isRunning)
        let resumedAt = Date()
        camera.startFeeding(value: 64)
        XCTAssertTrue(
            daemon.waitFor(10) { listener.values("WATCHDOG").contains { $0.value == "1" && $0.time > resumedAt } },
            "no ping after frames came back: \(listener.messages.suffix(5).map(\.text))")
        XCTAssertEqual(try Self.value(try daemon.metrics(), "appliance_stalled"), 0)
        XCTAssertTrue(daemon.log.contains("flowing again"), daemon.log)
        XCTAssertEqual(daemon.stop(), 0, String(daemon.log.suffix(4000)))  // while frames still come: reads return
    }

    /// A camera stuck inside a read (here a FIFO that stops being written, like a wedged driver) keeps its
    /// streaming thread, so the graph cannot stop; SIGTERM must still end the daemon, cleanly and soon, instead of
    /// waiting for systemd's SIGKILL.
    func testAStuckDeviceDoesNotHoldUpShutdown() throws {
        let camera = try FifoCamera(name: "stuck")
        let daemon = try DaemonProcess(extra: FifoCamera.video, cameras: camera.config)
        camera.startFeeding()
        try daemon.start()
        _ = try daemon.recordStart()
        try daemon.waitUntilRecorded(1.5)
        camera.stopFeeding()
        // No more frames: the camera's thread now waits in read() for good.
        let asked = Date()
        XCTAssertEqual(daemon.stop(timeout: 20), 0, String(daemon.log.suffix(3000)))
        XCTAssertLessThan(Date().timeIntervalSince(asked), 15, "the stop waited for the stuck device")
        XCTAssertTrue(daemon.log.contains("did not stop within"), daemon.log)
        XCTAssertEqual(daemon.recordings().count, 1, "the recording was finalised before the graph was given up on")
    }

    func testNothingIsSentWithoutNotifySocket() throws {
        let daemon = try DaemonProcess()
        let listener = try NotifyListener(directory: daemon.directory)
        defer { listener.close() }
        daemon.environment = ["WATCHDOG_USEC": "\(Self.watchdogUsec)"]  // a watchdog without a socket: nothing to ping
        try daemon.start()
        _ = try daemon.recordStart()
        try daemon.waitUntilRecorded(2.5)  // past a watchdog interval
        _ = try daemon.recordStop()
        XCTAssertEqual(daemon.stop(), 0)
        // the subject: no message comes (one sent would be read within the 200 ms receive timeout)
        Thread.sleep(forTimeInterval: 0.3)
        XCTAssertEqual(listener.messages.map(\.text), [])
        XCTAssertFalse(daemon.log.contains("systemd notify"), daemon.log)
    }

    /// Started by a service manager after two unclean exits in a row, the daemon waits 2 s before opening its
    /// devices (systemd 252 restarts every 2 s regardless), and says why in STATUS=.
    func testACrashLoopUnderSystemdIsPacedByTheDaemon() throws {
        let daemon = try DaemonProcess()
        let listener = try NotifyListener(directory: daemon.directory)
        defer { listener.close() }
        daemon.environment = ["NOTIFY_SOCKET": listener.path]
        for _ in 0..<2 {
            try daemon.start()
            daemon.stop(signal: SIGKILL)
        }
        XCTAssertFalse(daemon.log.contains("crash loop"), "one unclean exit in a row: no wait")
        try daemon.start()
        XCTAssertTrue(
            daemon.log.contains("crash loop: 2 unclean exits in a row: waiting 2 s before opening the devices"),
            daemon.log)
        let statuses = listener.values("STATUS").map(\.value)
        let waiting = try XCTUnwrap(statuses.lastIndex { $0.hasPrefix("crash loop: 2 unclean exits") }, "\(statuses)")
        let readyAfter = listener.values("READY").last.map { $0.time } ?? .distantPast
        XCTAssertGreaterThan(readyAfter, listener.values("STATUS")[waiting].time, "READY=1 after the wait")
        let metrics = try daemon.metrics()
        XCTAssertEqual(try Self.value(metrics, "appliance_unclean_exits_total"), 2)
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.start()  // after a clean stop: no wait (the log starts afresh with each start)
        XCTAssertFalse(daemon.log.contains("crash loop"), daemon.log)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// Variables systemd would never set this way: a warning each, and the daemon records as usual.
    func testUnusableNotifyVariablesAreWarnedAboutAndHarmless() throws {
        for (socket, watchdog, warning) in [
            ("relative/notify.sock", "2000000", "NOTIFY_SOCKET=relative/notify.sock is not an AF_UNIX socket address"),
            ("/nonexistent/folder/notify.sock", "soon", "WATCHDOG_USEC=soon is not a number of microseconds"),
        ] {
            let daemon = try DaemonProcess()
            daemon.environment = ["NOTIFY_SOCKET": socket, "WATCHDOG_USEC": watchdog]
            try daemon.start()
            _ = try daemon.recordStart()
            try daemon.waitUntilRecorded(1.5)
            let clip = try daemon.recordStop()
            XCTAssertGreaterThan(clip.videoFrames, 20)
            XCTAssertEqual(daemon.stop(), 0)
            XCTAssertTrue(daemon.log.contains(warning), daemon.log)
        }
    }

    static func value(_ metrics: MetricsReport, _ name: String, labels: [String: String] = [:]) throws -> Double {
        let family = try XCTUnwrap(metrics[name], "no \(name)")
        return try XCTUnwrap(family.value(labels), "\(name) has no sample \(labels)")
    }
}

/// A value shared with a callback thread.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }
    func set(_ value: Value) {
        lock.lock()
        stored = value
        lock.unlock()
    }
}
