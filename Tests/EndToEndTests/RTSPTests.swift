import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// `[rtsp]` with real clients (ffprobe, ffmpeg, gst-launch's rtspsrc) against the daemon: the recording's own H.264
/// at the configured size with its AAC, continuous frames across a camera switch, several clients on one media,
/// Digest authentication, status and metrics, and recordings that stay whole while clients come, go or are killed.
final class RTSPTests: XCTestCase {
    /// Two cameras scrolling SMPTE bars (`FrameContinuity`), one keyframe a second.
    static let cameras =
        FrameContinuity.camera + """

            [[camera]]
            name = "second"
            source = "pipeline"
            pipeline = "videotestsrc is-live=true pattern=smpte horizontal-speed=\(FrameContinuity.speed)"
            """

    /// `video`: more `[video]` keys.
    private func startDaemon(video: String = "", extra: String = "") throws -> (DaemonProcess, String) {
        let daemon = try DaemonProcess(
            extra: FrameContinuity.config + "\n" + video + "\n[rtsp]\nlisten = \"127.0.0.1:0\"\n" + extra,
            cameras: Self.cameras)
        try daemon.start()
        var url: String?
        daemon.waitFor(10) {
            url = (try? daemon.status())?.rtsp?.url
            return url != nil
        }
        return (daemon, try XCTUnwrap(url, "status.rtsp.url once it serves: \(daemon.log)"))
    }

    private func probe(_ url: String, transport: String = "tcp") throws -> ProcessOutcome {
        try ProcessOutcome.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-rtsp_transport", transport, "-show_entries",
                "stream=codec_name,width,height,sample_rate", "-of", "compact", url,
            ], timeout: 60)
    }

    /// `probe` until the guessing ledger lets a right password in (`whenLetIn`).
    private func probeWhenLetIn(_ url: String) throws -> ProcessOutcome { try whenLetIn { try probe(url) } }

    /// An ffmpeg client copying the stream into `file` for `seconds` (MPEG-TS: 90 kHz timestamps, as RTP's; Matroska's
    /// millisecond ones round 30 fps frames onto equal DTS, which ffmpeg then reports as non-monotonic).
    private func copyClient(_ url: String, to file: String, seconds: Int, transport: String = "tcp") throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        // -timeout (µs): a client whose stream stalls gives up instead of waiting for ever.
        process.arguments = [
            "-v", "error", "-rtsp_transport", transport, "-timeout", "20000000", "-i", url, "-t", "\(seconds)",
            "-c", "copy", "-f", "mpegts", "-y", file,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    func testTheStreamIsTheRecordingsVideoAndSoundAndStatusCountsClients() throws {
        let (daemon, url) = try startDaemon()
        defer { daemon.stop() }
        XCTAssertTrue(url.hasPrefix("rtsp://127.0.0.1:") && url.hasSuffix("/live"), url)
        let status = try XCTUnwrap(try daemon.status().rtsp)
        XCTAssertEqual(status.state, .serving)
        XCTAssertEqual(status.authentication, "none")
        XCTAssertEqual(status.clients, 0)

        let probed = try probe(url)
        XCTAssertEqual(probed.status, 0, probed.stderr)
        XCTAssertTrue(
            probed.stdout.contains("codec_name=h264|width=\(FrameContinuity.width)|height=\(FrameContinuity.height)"),
            probed.stdout)
        XCTAssertTrue(probed.stdout.contains("codec_name=aac|sample_rate=48000"), probed.stdout)

        // Three clients at once (one over UDP), each for 4 s; status and metrics count them while they play.
        let folder = daemon.directory.path
        let clients = try (0..<3).map {
            try copyClient(url, to: "\(folder)/client\($0).ts", seconds: 4, transport: $0 == 0 ? "udp" : "tcp")
        }
        XCTAssertTrue(daemon.waitFor(20) { (try? daemon.status().rtsp?.clients) == 3 }, "three clients counted")
        let gauge = try daemon.metrics().families.first { $0.name == "appliance_rtsp_clients" }
        XCTAssertEqual(gauge?.samples.first?.value, 3)
        let line = try daemon.ctl(["status"]).stdout
        XCTAssertTrue(line.contains("rtsp: \(url) (serving, 3 clients, login none)"), line)
        for client in clients { client.finish(within: 4 + 40) }
        for (index, client) in clients.enumerated() {
            XCTAssertEqual(client.terminationStatus, 0, "client \(index)")
            let copy = try MediaProbe("\(folder)/client\(index).ts")
            XCTAssertEqual(copy.video?.codec, "h264", "client \(index)")
            XCTAssertEqual(copy.audio?.codec, "aac", "client \(index)")
        }
        XCTAssertTrue(daemon.waitFor(10) { (try? daemon.status().rtsp?.clients) == 0 }, "every client counted out")

        // gst-launch's rtspsrc decodes 45 frames (1.5 s) and ends by itself: its EOS, printed (untranslated: LC_ALL=C)
        // only when no error came before it, is the proof. What follows belongs to rtspsrc (1.22) alone: going to
        // NULL, it sometimes
        // sends its PAUSE after its TEARDOWN, the server answers the TEARDOWN and closes the
        // connection as RTSP allows, and the PAUSE then fails with "Received end-of-file" (0 in 52 runs with
        // rtspsrc's debug log on, 4 in 15 and 3 in 20 without; the server's log showed TEARDOWN received, no PAUSE).
        let gst = try ProcessOutcome.run(
            "/usr/bin/gst-launch-1.0",
            [
                "rtspsrc", "location=\(url)", "protocols=tcp", "!", "rtph264depay", "!",
                "h264parse", "!", "avdec_h264", "!", "identity", "eos-after=45", "!", "fakesink",
            ],
            environment: ProcessInfo.processInfo.environment.merging(["LC_ALL": "C"]) { $1 }, timeout: 60)
        XCTAssertTrue(gst.stdout.contains("Got EOS from element \"pipeline0\""), gst.stderr + gst.stdout)
        if gst.status != 0 {
            let errors = gst.stderr.components(separatedBy: "\n").filter { $0.hasPrefix("Could not") }
            XCTAssertTrue(
                !errors.isEmpty && errors.allSatisfy { $0.contains("Received end-of-file") },
                "only the teardown race may follow the EOS: \(gst.stderr)")
        }
    }

    /// Two channels: `/live` stays the first's, and `/live/NAME` is each channel's own picture (the rear one's at its
    /// own size); status and `ctl status` name each channel's address.
    func testEachChannelHasAStreamOfItsOwn() throws {
        let daemon = try DaemonProcess(
            extra: "[video]\nwidth = 640\nheight = 360\n[rtsp]\nlisten = \"127.0.0.1:0\"\n",
            cameras: Self.cameras + FrontAndRear.channels(front: "main", rear: "second"))
        try daemon.start()
        defer { daemon.stop() }
        var status: RTSPStatus?
        daemon.waitFor(10) {
            status = try? daemon.status().rtsp
            return status?.url != nil
        }
        let url = try XCTUnwrap(status?.url, daemon.log)
        XCTAssertEqual(status?.channelStreams, ["front": url + "/front", "rear": url + "/rear"])
        for (path, size) in [("", "640|height=360"), ("/front", "640|height=360"), ("/rear", "320|height=180")] {
            let probed = try probe(url + path)
            XCTAssertEqual(probed.status, 0, "\(path): \(probed.stderr)")
            XCTAssertTrue(probed.stdout.contains("codec_name=h264|width=\(size)"), "\(path): \(probed.stdout)")
        }
        let text = try daemon.ctl(["status"]).stdout
        XCTAssertTrue(text.contains("rtsp channel rear: \(url)/rear"), text)
    }

    func testFramesStayContinuousForTenSecondsAcrossACameraSwitch() throws {
        let (daemon, url) = try startDaemon()
        defer { daemon.stop() }
        let file = daemon.directory.path + "/watched.ts"
        _ = try daemon.recordStart(title: "switched")
        let client = try copyClient(url, to: file, seconds: 10)
        XCTAssertTrue(daemon.waitFor(20) { (try? daemon.status().rtsp?.clients) == 1 })
        // the subject: the switch falls 4 s into the 10 s the client copies, after it connected
        Thread.sleep(forTimeInterval: 4)
        _ = try daemon.switchCamera(.named("second"))
        client.finish(within: 10 + 40)
        XCTAssertEqual(client.terminationStatus, 0)
        let clip = try daemon.recordStop()

        let rows = try FrameContinuity.rows(of: [file])
        XCTAssertGreaterThanOrEqual(rows.count, 270, "about 10 s at 30 fps decoded")
        // The stream starts on a keyframe (asked for at PLAY) and every frame follows its predecessor, except at
        // the switch, where it shows exactly what the recording of the same seconds shows (the new camera's bars
        // may start at another phase, or its first frames come a little late): the same frames, not a copy that
        // loses or repeats its own.
        let breaks = FrameContinuity.breaks(in: rows)
        let span = (breaks.map(\.index).max() ?? 0) - (breaks.map(\.index).min() ?? 0)
        XCTAssertLessThanOrEqual(span, 10, "every break is at the switch: \(breaks)")
        let recorded = FrameContinuity.breaks(in: try FrameContinuity.rows(of: [clip.path]))
        XCTAssertEqual(breaks.map(\.movement), recorded.map(\.movement), "the stream's breaks are the recording's")
        let decode = try ProcessOutcome.run("/usr/bin/ffmpeg", ["-v", "error", "-i", file, "-f", "null", "-"])
        XCTAssertEqual(decode.stderr, "", "the copy decodes without an error")
    }

    func testARecordingStaysWholeWhileClientsWatchAndOneIsKilled() throws {
        // Keyframes 4 s apart: a recording that waited for the stream's next one would start up to 4 s late.
        let (daemon, url) = try startDaemon(video: "keyframe_interval_s = 4")
        defer { daemon.stop() }
        let folder = daemon.directory.path
        let watcher = try copyClient(url, to: folder + "/watcher.ts", seconds: 30)
        XCTAssertTrue(daemon.waitFor(20) { (try? daemon.status().rtsp?.clients) == 1 })
        // The encoder already runs for the viewer: the recording still starts at once, on a keyframe asked for
        // at its planned start (not at the next keyframe of the stream's GOP).
        _ = try daemon.recordStart(title: "watched")
        try daemon.waitUntilRecorded(1.5)
        kill(watcher.processIdentifier, SIGKILL)
        watcher.finish(within: 30 + 40)
        let second = try copyClient(url, to: folder + "/second.ts", seconds: 2)
        try daemon.waitUntilRecorded(3.0)
        let result = try daemon.recordStop()
        second.finish(within: 2 + 40)
        XCTAssertEqual(second.terminationStatus, 0, "a client after the killed one plays")

        XCTAssertEqual(result.droppedFrames, 0)
        print("RTSPTests: start latency with a viewer \(result.startLatencyMs ?? -1) ms")
        XCTAssertLessThan(
            try XCTUnwrap(result.startLatencyMs), 1000, "the clip starts when asked, not at the stream's next keyframe")
        XCTAssertGreaterThan(result.durationMs, 2700, "3 s recorded: \(result.durationMs) ms")
        let rows = try FrameContinuity.rows(of: [result.path])
        XCTAssertEqual(FrameContinuity.breaks(in: rows).count, 0, "the clip's frames are continuous")
        let decode = try ProcessOutcome.run("/usr/bin/ffmpeg", ["-v", "error", "-i", result.path, "-f", "null", "-"])
        XCTAssertEqual(decode.stderr, "", "the clip decodes without an error")
        XCTAssertTrue(
            daemon.waitFor(10) { (try? daemon.status().rtsp?.clients) == 0 }, "the killed client is counted out")
    }

    /// A `[web] token_file` holding "correct-horse-battery"; the caller removes it.
    private func passwordFile() throws -> String {
        let token = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rtsp-token-\(UUID().uuidString.prefix(8))"
        ).path
        try "correct-horse-battery\n".write(toFile: token, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: token)
        return token
    }

    func testDigestAuthenticationWithTheWebPassword() throws {
        let token = try passwordFile()
        defer { try? FileManager.default.removeItem(atPath: token) }
        let (daemon, url) = try startDaemon(extra: "[web]\nlisten = \"127.0.0.1:0\"\ntoken_file = \"\(token)\"")
        defer { daemon.stop() }
        XCTAssertEqual(try daemon.status().rtsp?.authentication, "digest")

        let none = try probe(url)
        XCTAssertNotEqual(none.status, 0, "no password")
        XCTAssertTrue(none.stderr.contains("401"), none.stderr)
        let withUser = { (user: String, password: String) in
            url.replacingOccurrences(of: "rtsp://", with: "rtsp://\(user):\(password)@")
        }
        let wrong = try probe(withUser("appliance", "wrong-password"))
        XCTAssertNotEqual(wrong.status, 0, "a wrong password")
        let otherUser = try probe(withUser("admin", "correct-horse-battery"))
        XCTAssertNotEqual(otherUser.status, 0, "another user name")
        let right = try probeWhenLetIn(withUser("appliance", "correct-horse-battery"))
        XCTAssertEqual(right.status, 0, right.stderr)
        XCTAssertTrue(right.stdout.contains("codec_name=h264"), right.stdout)

        // The password appears nowhere the daemon reports.
        let json = try daemon.ctl(["--json", "status"]).stdout
        XCTAssertFalse(json.contains("correct-horse"), json)
        XCTAssertFalse(daemon.log.contains("correct-horse"), daemon.log)

        // An account watches with its own name and password, added and removed while the server runs.
        XCTAssertEqual(
            try daemon.ctl(["user", "add", "vic", "--role", "viewer"], input: "vics-password-1\n").status, 0)
        let viewer = try probeWhenLetIn(withUser("vic", "vics-password-1"))
        XCTAssertEqual(viewer.status, 0, viewer.stderr)
        XCTAssertNotEqual(try probe(withUser("vic", "wrong-password")).status, 0, "an account's wrong password")
        XCTAssertTrue(
            daemon.waitFor(5) { daemon.log.contains("rtsp: refused user \"vic\" from 127.0.0.1") }, daemon.log)
        XCTAssertFalse(
            daemon.log.contains("rtsp: refused a credential"),
            "a client's first, unauthenticated request is a challenge, not a refusal")
        XCTAssertEqual(
            try probeWhenLetIn(withUser("appliance", "correct-horse-battery")).status, 0, "the token_file's user stays")
        XCTAssertEqual(try daemon.ctl(["user", "remove", "vic"]).status, 0)
        XCTAssertNotEqual(try probe(withUser("vic", "vics-password-1")).status, 0, "a removed account")
    }

    /// On loopback with no token_file anyone may watch, until the first account exists: then only accounts.
    func testTheFirstAccountClosesAnOpenStream() throws {
        let (daemon, url) = try startDaemon(extra: "")
        defer { daemon.stop() }
        XCTAssertEqual(try daemon.status().rtsp?.authentication, "none")
        XCTAssertEqual(try probe(url).status, 0)
        XCTAssertEqual(
            try daemon.ctl(["user", "add", "anna", "--role", "admin"], input: "anna-password-1\n").status, 0)
        XCTAssertTrue(daemon.waitFor(10) { (try? daemon.status().rtsp?.authentication) == "digest" })
        let open = try probe(url)
        XCTAssertNotEqual(open.status, 0, "no login once an account exists")
        XCTAssertTrue(open.stderr.contains("401"), open.stderr)
        let anna = try probe(url.replacingOccurrences(of: "rtsp://", with: "rtsp://anna:anna-password-1@"))
        XCTAssertEqual(anna.status, 0, anna.stderr)
    }

    /// `[rtsp] tls = true`: rtsps:// with the device's own certificate (made by RTSP here, the dashboard being plain
    /// HTTP on loopback), with Digest over it; plain rtsp:// gets nothing.
    func testRTSPOverTLSWithTheDevicesCertificate() throws {
        let token = try passwordFile()
        defer { try? FileManager.default.removeItem(atPath: token) }
        let (daemon, url) = try startDaemon(
            extra: "tls = true\n[web]\nlisten = \"127.0.0.1:0\"\ntoken_file = \"\(token)\"")
        defer { daemon.stop() }
        XCTAssertTrue(url.hasPrefix("rtsps://127.0.0.1:"), url)
        let port = try XCTUnwrap(URLComponents(string: url)?.port)
        let certificate = daemon.dataDir + "/tls/device.crt"
        XCTAssertEqual(try TLSProbe.servedFingerprint(port: port), try TLSProbe.fingerprint(ofFile: certificate))
        let login = url.replacingOccurrences(of: "rtsps://", with: "rtsps://appliance:correct-horse-battery@")
        let right = try probe(login)
        XCTAssertEqual(right.status, 0, right.stderr)
        XCTAssertTrue(right.stdout.contains("codec_name=h264"), right.stdout)
        XCTAssertNotEqual(
            try probe(url.replacingOccurrences(of: "rtsps://", with: "rtsps://appliance:wrong@")).status, 0,
            "a wrong password")
        // A plain client's request meets a server waiting for a TLS handshake: no answer, so it gives up (-timeout,
        // µs).
        let plain = try ProcessOutcome.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-rtsp_transport", "tcp", "-timeout", "3000000",
                login.replacingOccurrences(of: "rtsps://", with: "rtsp://"),
            ], timeout: 60)
        XCTAssertNotEqual(plain.status, 0, "plain RTSP to a TLS port")
        XCTAssertTrue(plain.stdout.isEmpty, plain.stdout)
    }

    func testAnAddressOthersCanReachNeedsAPasswordFile() throws {
        let daemon = try DaemonProcess(extra: "[rtsp]\nlisten = \"0.0.0.0:0\"")
        let run = try ProcessOutcome.run(
            DaemonProcess.binary, ["run", "--config", daemon.configPath, "--socket", daemon.socketPath], timeout: 30)
        XCTAssertNotEqual(run.status, 0)
        let line = run.stderr.split(separator: "\n").last.map(String.init) ?? ""
        XCTAssertTrue(line.contains("rtsp.listen") && line.contains("token_file"), line)
    }
}
