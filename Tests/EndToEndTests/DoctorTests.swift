import ApplianceBase
import Diagnostics
import Foundation
import TestSupport
import XCTest

/// `appliance doctor`, run as a user runs it: the real binary on this machine's devices, filesystems and clock,
/// real GStreamer encodes, and a real WebDAV server for the backup check.
final class DoctorTests: XCTestCase {
    /// One doctor run: its exit code, its check lines by name, and the summary's counts.
    struct Outcome {
        var status: Int32
        var stdout: String
        var lines: [String: String]
        var counts: (passed: Int, warnings: Int, failed: Int)?

        func line(_ name: String, file: StaticString = #filePath, lineNumber: UInt = #line) throws -> String {
            try XCTUnwrap(lines[name], "no '\(name)' line in:\n\(stdout)", file: file, line: lineNumber)
        }
    }

    private func doctor(_ arguments: [String], launcher: [String] = []) throws -> Outcome {
        let executable = launcher.first ?? DaemonProcess.binary
        let result = try ProcessOutcome.run(
            executable,
            Array(launcher.dropFirst()) + (launcher.isEmpty ? [] : [DaemonProcess.binary])
                + ["doctor"] + arguments, timeout: 180)
        var lines: [String: String] = [:]
        var counts: (Int, Int, Int)?
        for line in result.stdout.split(separator: "\n").map(String.init) {
            if let match = line.firstMatch(of: #/^doctor: (\d+) passed, (\d+) warnings?, (\d+) failed$/#) {
                counts = (Int(match.1)!, Int(match.2)!, Int(match.3)!)
            } else if let match = line.firstMatch(of: #/^(PASS|WARN|FAIL)  ([^:]+): /#) {
                lines[String(match.2)] = line
            } else {
                XCTFail("a line that is neither a check nor the summary: \(line)")
            }
        }
        return Outcome(status: result.status, stdout: result.stdout + result.stderr, lines: lines, counts: counts)
    }

    /// The summary agrees with the lines, and the exit code with the failures.
    private func assertConsistent(_ outcome: Outcome, file: StaticString = #filePath, line: UInt = #line) {
        let values = Array(outcome.lines.values)
        let failed = values.filter { $0.hasPrefix("FAIL") }.count
        XCTAssertEqual(
            outcome.counts?.passed, values.filter { $0.hasPrefix("PASS") }.count, outcome.stdout, file: file, line: line
        )
        XCTAssertEqual(
            outcome.counts?.warnings, values.filter { $0.hasPrefix("WARN") }.count, outcome.stdout, file: file,
            line: line)
        XCTAssertEqual(outcome.counts?.failed, failed, outcome.stdout, file: file, line: line)
        XCTAssertEqual(outcome.status, failed > 0 ? 1 : 0, outcome.stdout, file: file, line: line)
        for text in values where !text.hasPrefix("PASS") {
            XCTAssertTrue(
                text.contains(" -- fix: "), "a warning or failure says what to do: \(text)", file: file, line: line)
        }
        XCTAssertTrue(
            outcome.stdout.unicodeScalars.allSatisfy(\.isASCII), "ASCII output: \(outcome.stdout)", file: file,
            line: line)
    }

    /// A temporary folder with a config (test sources unless `cameras`/`extra` say otherwise) and a data folder.
    private func makeSetup(extra: String = "") throws -> DaemonProcess {
        let setup = try DaemonProcess(extra: extra)
        try FileManager.default.createDirectory(atPath: setup.dataDir, withIntermediateDirectories: true)
        return setup
    }

    /// The filesystem type the kernel reports for a folder (util-linux, independent of the appliance's code).
    private func fileSystemType(_ path: String) throws -> String {
        let result = try ProcessOutcome.run("/usr/bin/findmnt", ["-n", "-o", "FSTYPE", "--target", path])
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    // (a) The default config on this machine: no camera, no microphone, whatever clock it has.
    func testDefaultConfigOnThisMachine() throws {
        let setup = try makeSetup()
        let outcome = try doctor(["--data-dir", setup.dataDir])
        assertConsistent(outcome)
        XCTAssertEqual(
            try outcome.line("config"),
            """
            PASS  config: embedded Config/appliance.toml (no --config given) (1 camera, auto 1280x720@30 4000 \
            kbit/s, audio auto, backup off)
            """
        )
        if FileManager.default.fileExists(atPath: "/dev/video0") {
            XCTAssertNotNil(
                try outcome.line("camera main").firstMatch(of: #/^(PASS|WARN|FAIL)  camera main: \/dev\/video0/#))
        } else {
            XCTAssertEqual(
                try outcome.line("camera main"),
                """
                WARN  camera main: no camera at /dev/video0; the live test pattern will be used -- fix: connect a \
                camera or set [[camera]] source (and device)
                """
            )
        }
        let hasCaptureCard = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/snd")) ?? []).contains {
            $0.hasPrefix("pcmC") && $0.hasSuffix("c")
        }
        if !hasCaptureCard {
            XCTAssertTrue(
                try outcome.line("microphone").hasPrefix("WARN  microphone: no ALSA capture device"), outcome.stdout)
        }
        // `auto` tries the candidates as the daemon would (no hardware encoder here: openh264 is the first that works),
        // then a real encode of the configured size; a busy machine may make it slower than real time (a warning).
        let video = try outcome.line("video-encoder")
        let chosen =
            """
            video-encoder: auto chose openh264 (trial: v4l2h264 absent, vah264 absent, vah264lp absent, vaapih264 \
            absent, 
            """
            + "nvh264 absent, qsvh264 absent, openh264 passed); openh264 encoded 30 of 30 frames"
        XCTAssertTrue(
            video.hasPrefix("PASS  " + chosen + " (1280x720@30, 4000 kbit/s) in ")
                || (video.hasPrefix("WARN  " + chosen) && video.contains("slower than real time")), video)
        XCTAssertTrue(
            try outcome.line("audio-encoder").hasPrefix(
                "PASS  audio-encoder: aac encoded 1.0 s of 48000 Hz stereo into "), outcome.stdout)
        // Storage names the filesystem the kernel says the data folder is on.
        let type = try fileSystemType(setup.dataDir)
        XCTAssertFalse(type.isEmpty)
        let storage = try outcome.line("storage")
        XCTAssertNotNil(storage.firstMatch(of: #/^(PASS|WARN)  storage: /#), storage)
        XCTAssertTrue(storage.contains("  storage: \(type) on /"), "names \(type) and the mount point: \(storage)")
        // The clock: whatever this machine truly reports, said plainly.
        let clock = try outcome.line("clock")
        XCTAssertNotNil(clock.firstMatch(of: #/^(PASS|WARN)  clock: \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/#), clock)
        if clock.hasPrefix("WARN") { XCTAssertTrue(clock.contains("not synchronised"), clock) }
        XCTAssertTrue(
            clock.contains(
                FileManager.default.fileExists(atPath: "/sys/class/rtc/rtc0") ? "an RTC is fitted" : "no RTC"), clock)
        XCTAssertEqual(
            try outcome.line("data-folder"),
            "PASS  data-folder: \(setup.dataDir) is writable (owner \(try ownership(setup.dataDir)))")
        XCTAssertEqual(try outcome.line("backup"), "PASS  backup: backup off ([backup] url is empty)")
        XCTAssertNotNil(
            try outcome.line("permissions").firstMatch(
                of: #/^(PASS|WARN|FAIL)  permissions: .*(device nodes? |no camera, capture)/#))
        // Only the probe file was written, and it is gone.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: setup.dataDir), [])
        // On this machine nothing fails; on another one a failure must be one of the machine's own.
        for (name, text) in outcome.lines where text.hasPrefix("FAIL") {
            XCTAssertTrue(
                ["clock", "storage", "permissions", "camera main", "microphone"].contains(name),
                "unexpected failure: \(text)")
        }
    }

    /// "root:root 0755", as `stat` sees the folder.
    private func ownership(_ path: String) throws -> String {
        let result = try ProcessOutcome.run("/usr/bin/stat", ["-c", "%U:%G %04a", path])
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func testJSONCarriesTheSameChecks() throws {
        let setup = try makeSetup()
        let text = try doctor(["--config", setup.configPath])
        let result = try ProcessOutcome.run(
            DaemonProcess.binary, ["doctor", "--config", setup.configPath, "--json"], timeout: 180)
        let object = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any], result.stdout)
        let checks = try XCTUnwrap(object["checks"] as? [[String: Any]])
        XCTAssertEqual(Set(checks.compactMap { $0["name"] as? String }), Set(text.lines.keys))
        for check in checks {
            XCTAssertTrue(["pass", "warn", "fail"].contains(check["status"] as? String ?? ""), "\(check)")
            XCTAssertNotNil(check["detail"] as? String)
            XCTAssertTrue(check.keys.contains("fix"), "fix is always there (null for a pass): \(check)")
            XCTAssertEqual(check["status"] as? String == "pass", check["fix"] is NSNull, "\(check)")
        }
        XCTAssertEqual(object["passed"] as? Int, text.counts?.passed)
        XCTAssertEqual(object["warnings"] as? Int, text.counts?.warnings)
        XCTAssertEqual(object["failed"] as? Int, text.counts?.failed)
        XCTAssertEqual(result.status, text.status)
        // The test config uses test sources: they pass as what they are.
        XCTAssertEqual(
            text.lines["camera main"], "PASS  camera main: live test pattern 'smpte' (videotestsrc), as configured")
        XCTAssertEqual(text.lines["microphone"], "PASS  microphone: live test tone (audiotestsrc), as configured")
    }

    /// The speaker: a sink that plays passes; an ALSA device that is not there fails with ALSA's words and a fix.
    func testTheSpeakerIsTriedAsASoundWouldBe() throws {
        let setup = try makeSetup()
        try setup.appendConfig("[speaker]\npipeline = \"fakesink sync=true\"\nfeedback = true\n")
        let playing = try doctor(["--config", setup.configPath])
        XCTAssertEqual(
            try playing.line("speaker"), "PASS  speaker: fakesink sync=true: opens and plays; feedback chimes on")
        let missing = try makeSetup()
        try missing.appendConfig("[speaker]\ndevice = \"hw:CARD=NoSuchCard,DEV=0\"\n")
        let failed = try doctor(["--config", missing.configPath])
        let line = try failed.line("speaker")
        XCTAssertTrue(line.hasPrefix("FAIL  speaker: alsa hw:CARD=NoSuchCard,DEV=0 cannot play: "), line)
        XCTAssertTrue(line.contains("-- fix: `aplay -l` lists the playback devices"), line)
        XCTAssertNotEqual(failed.status, 0)
    }

    // (b) A real WebDAV server with the right password; a folder that is not there yet is what the uploader creates.
    func testBackupServerAnswersWithTheConfiguredCredentials() throws {
        let server = try WebDAVServer()
        try server.start()
        try FileManager.default.createDirectory(atPath: server.remoteRoot, withIntermediateDirectories: true)
        let setup = try makeSetup()
        try setup.appendConfig(try server.backupConfig(in: setup.directory))
        let outcome = try doctor(["--config", setup.configPath])
        assertConsistent(outcome)
        XCTAssertEqual(
            try outcome.line("backup"),
            "PASS  backup: \(server.url) answers as \(server.user) (PROPFIND: HTTP 207, a folder)")
        XCTAssertFalse(outcome.stdout.contains(server.password), "the password is never printed")
        // Doctor only read: every request it made was a PROPFIND.
        let methods = try server.log().compactMap { $0["method"] as? String }
        XCTAssertFalse(methods.isEmpty)
        XCTAssertEqual(Set(methods), ["PROPFIND"], "\(methods)")
        XCTAssertEqual(server.files(), [:])

        let missing = try makeSetup()
        try missing.appendConfig(
            try server.backupConfig(in: missing.directory).replacingOccurrences(
                of: server.url, with: server.url + "/not-yet"))
        let absent = try doctor(["--config", missing.configPath])
        assertConsistent(absent)
        XCTAssertEqual(
            try absent.line("backup"),
            """
            WARN  backup: \(server.url)/not-yet does not exist yet on the server; the first upload creates it \
            (MKCOL) -- fix: nothing to do if the URL is right; otherwise correct [backup] url
            """
        )
    }

    // (c) The wrong password is a failure that names the credentials, and exit code 1.
    func testWrongBackupPasswordFails() throws {
        let server = try WebDAVServer()
        try server.start()
        let setup = try makeSetup()
        try setup.appendConfig(try server.backupConfig(in: setup.directory, password: "not-the-password"))
        let outcome = try doctor(["--config", setup.configPath])
        assertConsistent(outcome)
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(
            try outcome.line("backup"),
            """
            FAIL  backup: the server refused the credentials as \(server.user) (HTTP 401) -- fix: check [backup] \
            username and password_file (or APPLIANCE_BACKUP_PASSWORD)
            """
        )
        XCTAssertFalse(outcome.stdout.contains("not-the-password"))
    }

    func testUnreachableServerAndUnsafePasswordFileFail() throws {
        let setup = try makeSetup()
        let port = Int.random(in: 40_001...50_000)  // nothing listens there
        try setup.appendConfig("[backup]\nurl = \"http://127.0.0.1:\(port)/dav\"\nusername = \"me\"")
        let outcome = try doctor(["--config", setup.configPath])
        assertConsistent(outcome)
        XCTAssertEqual(outcome.status, 1)
        XCTAssertTrue(
            try outcome.line("backup").hasPrefix(
                "FAIL  backup: cannot reach http://127.0.0.1:\(port)/dav: connection refused"), outcome.stdout)

        let exposed = try makeSetup()
        let file = exposed.directory.appendingPathComponent("password").path
        try "secret".write(toFile: file, atomically: true, encoding: .utf8)
        chmod(file, 0o644)
        try exposed.appendConfig(
            "[backup]\nurl = \"http://127.0.0.1:\(port)/dav\"\nusername = \"me\"\npassword_file = \"\(file)\"")
        let refused = try doctor(["--config", exposed.configPath])
        assertConsistent(refused)
        XCTAssertTrue(
            try refused.line("backup").hasPrefix(
                "FAIL  backup: backup.password_file \(file) is readable by others (mode 644)"), refused.stdout)
    }

    // (d) An encoder that cannot be built: a fragment that is not there, and one naming an element that is not
    // installed.
    func testMissingEncoderFails() throws {
        let setup = try makeSetup(extra: "[video]\nencoder = \"nonexistent\"")
        let outcome = try doctor(["--config", setup.configPath])
        assertConsistent(outcome)
        XCTAssertEqual(outcome.status, 1)
        let line = try outcome.line("video-encoder")
        XCTAssertTrue(
            line.hasPrefix(
                "FAIL  video-encoder: nonexistent: pipeline fragment encoders/nonexistent.gst: not found in "), line)
        XCTAssertTrue(
            line.hasSuffix(
                """
                -- fix: set [video] encoder to one of: nvh264, openh264, qsvh264, v4l2h264, vaapih264, vah264, \
                vah264lp, x264 (files in \(repositoryRoot)/pipelines/encoders)
                """
            ), line)

        let pipelines = setup.directory.appendingPathComponent("pipelines").path
        try FileManager.default.copyItem(atPath: repositoryRoot + "/pipelines", toPath: pipelines)
        try "nosuchenc bitrate=${bitrate_kbps} ! capsfilter caps=video/x-h264".write(
            toFile: pipelines + "/encoders/bogus.gst", atomically: true, encoding: .utf8)
        let bogus = try makeSetup()
        // pipelines_dir is a top-level key: it must come before the first table.
        try
            ("pipelines_dir = \"\(pipelines)\"\n"
            + DaemonProcess.config(dataDir: bogus.dataDir, extra: "[video]\nencoder = \"bogus\""))
            .write(toFile: bogus.configPath, atomically: true, encoding: .utf8)
        let broken = try doctor(["--config", bogus.configPath])
        assertConsistent(broken)
        XCTAssertEqual(broken.status, 1)
        XCTAssertEqual(
            try broken.line("video-encoder"),
            """
            FAIL  video-encoder: bogus: pipeline fragment encoders/bogus.gst: no element \"nosuchenc\" -- in: \
            nosuchenc bitrate=4000 ! capsfilter caps=video/x-h264 -- fix: install the GStreamer plugin that \
            provides nosuchenc (gst-inspect-1.0 nosuchenc tells when it is there)
            """
        )
        XCTAssertTrue(try broken.line("audio-encoder").hasPrefix("PASS"), "the audio encoder is judged on its own")
    }

    func testBadConfigIsOneFailureNamingTheKey() throws {
        let setup = try makeSetup(extra: "[video]\nframerate = \"fast\"")
        let outcome = try doctor(["--config", setup.configPath])
        XCTAssertEqual(outcome.status, 1)
        XCTAssertEqual(outcome.lines.count, 1, outcome.stdout)
        let line = try outcome.line("config")
        XCTAssertTrue(line.hasPrefix("FAIL  config: \(setup.configPath):"), line)
        XCTAssertTrue(line.contains("video.framerate: expected an integer"), line)
        let number =
            try XCTUnwrap(
                try String(contentsOfFile: setup.configPath, encoding: .utf8).split(
                    separator: "\n", omittingEmptySubsequences: false
                )
                .firstIndex { $0.hasPrefix("framerate") }) + 1
        XCTAssertTrue(line.hasSuffix("-- fix: correct video.framerate in \(setup.configPath) line \(number)"), line)
        XCTAssertEqual(outcome.counts?.failed, 1)

        let missing = try doctor(["--config", setup.directory.appendingPathComponent("nope.toml").path])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(try missing.line("config").contains("no such file"), missing.stdout)
    }

    // (e) The data folder on real filesystems of another kind: tmpfs (recordings lost at reboot), and one too small
    // for [storage] min_free_mb. Mounted in a private mount namespace that doctor runs in.
    func testFileSystemKindAndRoomOnRealMounts() throws {
        guard (try? ProcessOutcome.run("/usr/bin/unshare", ["-m", "true"]))?.status == 0 else {
            throw XCTSkip("no private mount namespace here (unshare -m needs root or user namespaces)")
        }
        let setup = try makeSetup()
        func mounted(_ size: String) -> [String] {
            [
                "/usr/bin/unshare", "-m", "--propagation", "private", "/bin/sh", "-c",
                "mount -t tmpfs -o size=\(size) tmpfs '\(setup.dataDir)' && exec \"$0\" \"$@\"",
            ]
        }
        let roomy = try doctor(["--config", setup.configPath], launcher: mounted("8g"))
        assertConsistent(roomy)
        let storage = try roomy.line("storage")
        XCTAssertTrue(storage.hasPrefix("WARN  storage: tmpfs on \(setup.dataDir): "), storage)
        XCTAssertTrue(
            storage.contains("in memory: recordings are lost at reboot -- fix: mount real storage on the data folder"),
            storage)
        XCTAssertTrue(
            try roomy.line("data-folder").hasPrefix("PASS  data-folder: \(setup.dataDir) is writable"), roomy.stdout)

        let small = try doctor(["--config", setup.configPath], launcher: mounted("16m"))
        assertConsistent(small)
        XCTAssertEqual(small.status, 1)
        let full = try small.line("storage")
        XCTAssertTrue(full.hasPrefix("FAIL  storage: tmpfs on \(setup.dataDir): 16 MB free of 16 MB"), full)
        XCTAssertTrue(full.contains("under [storage] min_free_mb = 512: recording stops"), full)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: setup.dataDir), [],
            "nothing reached the folder under the mount")
    }

    /// Doctor beside a running daemon on the same data folder: it answers, takes no lock, and the daemon carries on.
    func testRunsBesideTheDaemon() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        let before = try FileManager.default.contentsOfDirectory(atPath: daemon.dataDir).sorted()
        let outcome = try doctor(["--config", daemon.configPath])
        assertConsistent(outcome)
        XCTAssertTrue(
            try outcome.line("data-folder").hasPrefix("PASS  data-folder: \(daemon.dataDir) is writable"),
            outcome.stdout)
        XCTAssertTrue(try outcome.line("video-encoder").contains("encoded 30 of 30 frames"), outcome.stdout)
        XCTAssertTrue(daemon.isRunning)
        XCTAssertEqual(try daemon.status().ready, true)
        let clip = try daemon.recordClip(seconds: 0.5)
        XCTAssertNotNil(clip.path)
        let after = try FileManager.default.contentsOfDirectory(atPath: daemon.dataDir)
        XCTAssertFalse(after.contains { $0.hasPrefix(".doctor-probe") }, "\(after)")
        XCTAssertTrue(Set(before).isSubset(of: Set(after)), "\(before) → \(after)")
    }

    private var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }
}
