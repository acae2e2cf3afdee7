import Engine
import Foundation
import MotionAndSound
import Settings
import TLSIdentity
import XCTest

@testable import Diagnostics

/// The pure parts of `appliance doctor`: how findings become PASS/WARN/FAIL lines. The checks against this
/// machine's devices, filesystems, encoders and a WebDAV server are in EndToEndTests/DoctorTests.
final class DoctorTests: XCTestCase {
    func testLinesAreOneLineASCIIWithTheFixOnlyWhenNeeded() {
        XCTAssertEqual(DoctorCheck.pass("clock", "fine").line, "PASS  clock: fine")
        XCTAssertNil(DoctorCheck(name: "x", status: .pass, detail: "d", fix: "ignored").fix, "a pass has no fix")
        XCTAssertEqual(
            DoctorCheck.warn("storage", "low", fix: "free space").line, "WARN  storage: low -- fix: free space")
        XCTAssertEqual(
            DoctorCheck.fail("video-encoder", "bad\n  more\n", fix: "install \u{2014} x264 \u{00D7} 2").line,
            "FAIL  video-encoder: bad; more -- fix: install -- x264 x 2")
    }

    func testReportCountsSummaryExitCodeAndJSON() throws {
        let report = DoctorReport(checks: [.pass("a", "1"), .warn("b", "2", fix: "f"), .pass("c", "3")])
        XCTAssertEqual(report.summary, "doctor: 2 passed, 1 warning, 0 failed")
        XCTAssertEqual(report.exitCode, 0)
        XCTAssertEqual(report.text.split(separator: "\n").last, "doctor: 2 passed, 1 warning, 0 failed")
        let failing = DoctorReport(checks: report.checks + [.fail("d", "4", fix: "g"), .warn("e", "5", fix: "h")])
        XCTAssertEqual(failing.summary, "doctor: 2 passed, 2 warnings, 1 failed")
        XCTAssertEqual(failing.exitCode, 1)
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(failing.json().utf8)) as? [String: Any])
        XCTAssertEqual(object["passed"] as? Int, 2)
        XCTAssertEqual(object["warnings"] as? Int, 2)
        XCTAssertEqual(object["failed"] as? Int, 1)
        let checks = try XCTUnwrap(object["checks"] as? [[String: Any]])
        XCTAssertEqual(checks.map { $0["name"] as? String }, ["a", "b", "c", "d", "e"])
        XCTAssertEqual(checks.map { $0["status"] as? String }, ["pass", "warn", "pass", "fail", "warn"])
        XCTAssertTrue(checks[0]["fix"] is NSNull, "fix is null for a pass, but present")
        XCTAssertEqual(checks[3]["fix"] as? String, "g")
    }

    func testFreeSpaceThresholds() {
        let gb: Int64 = 1_000_000_000
        // 4128 kbit/s is 516 kB/s: an hour is 1.86 GB.
        func judge(_ free: Int64, clips: Int64 = 0, minFreeMb: Int = 512) -> SpaceVerdict {
            SpaceVerdict.judge(
                freeBytes: free, clipBytes: clips, totalBytes: 64 * gb, minFreeMb: minFreeMb, bitrateKbps: 4128)
        }
        XCTAssertEqual(judge(100 * gb / 1000).status, .fail, "under min_free_mb")
        XCTAssertTrue(judge(100 * gb / 1000).detail.contains("under [storage] min_free_mb = 512: recording stops"))
        XCTAssertEqual(judge(900 * gb / 1000).status, .warn, "under twice min_free_mb")
        XCTAssertTrue(judge(900 * gb / 1000).detail.contains("under twice"))
        XCTAssertEqual(judge(2 * gb).status, .warn, "1.5 GB of room is less than an hour at 4128 kbit/s")
        XCTAssertTrue(judge(2 * gb).detail.contains("less than an hour"), judge(2 * gb).detail)
        XCTAssertEqual(judge(3 * gb).status, .pass)
        XCTAssertEqual(judge(3 * gb).detail, "3.0 GB free of 64.0 GB, room for 80 min at 4128 kbit/s")
        XCTAssertEqual(judge(40 * gb).detail, "40.0 GB free of 64.0 GB, room for 21 h at 4128 kbit/s")
        // A full card of clips is a dashcam's normal state: retention deletes them to make room.
        let dashcam = judge(600 * gb / 1000, clips: 50 * gb)
        XCTAssertEqual(dashcam.status, .pass)
        XCTAssertEqual(
            dashcam.detail,
            "600 MB free of 64.0 GB, 50.0 GB of clips retention may delete, room for 26 h at 4128 kbit/s")
        XCTAssertEqual(judge(10 * gb / 1000, minFreeMb: 0).status, .warn, "no floor, but minutes of room")
    }

    func testFileSystemTypes() {
        func kind(_ magic: UInt64?, _ type: String? = nil) -> FileSystemKind {
            FileSystemKind(magic: magic, mountType: type)
        }
        for (magic, name) in [(UInt64(0x4D44), "vfat"), (UInt64(0x2011_BAB0), "exfat")] {
            XCTAssertEqual(kind(magic).name, name)
            XCTAssertEqual(kind(magic).status, .warn)
            XCTAssertEqual(kind(magic).concern, "no journal: a power cut can corrupt the filesystem")
            XCTAssertTrue(kind(magic).fix?.hasPrefix("use ext4 or f2fs") ?? false)
        }
        XCTAssertEqual(kind(0x0102_1994).name, "tmpfs")
        XCTAssertEqual(kind(0x0102_1994).concern, "in memory: recordings are lost at reboot")
        for (magic, name) in [
            (UInt64(0xEF53), "ext4"), (0x5846_5342, "xfs"), (0x9123_683E, "btrfs"), (0xF2F5_2010, "f2fs"),
        ] {
            XCTAssertEqual(
                kind(magic, name == "ext4" ? "ext4" : nil),
                FileSystemKind(name: name, status: .pass, concern: nil, fix: nil))
        }
        XCTAssertEqual(kind(0xEF53, "ext2").status, .warn, "ext2 shares ext4's magic but has no journal")
        XCTAssertEqual(kind(0xEF53, "ext3").name, "ext3")
        XCTAssertEqual(kind(0x6969, "nfs4").status, .warn)
        XCTAssertEqual(kind(0x6969, "nfs4").name, "nfs4")
        XCTAssertEqual(kind(0x6573_5546, "fuseblk").name, "fuseblk")
        XCTAssertEqual(kind(0x1234).name, "type 0x1234")
        XCTAssertEqual(kind(nil).status, .warn)
    }

    func testMountTableFindsTheMountHoldingAPath() {
        let text = """
            22 27 0:21 / /proc rw,relatime - proc proc rw
            27 1 254:0 / / rw,relatime - ext4 /dev/vda rw
            40 27 8:1 / /media/sd\\040card rw,noatime shared:5 - vfat /dev/mmcblk0p1 rw,fmask=0022
            41 27 8:2 / /media/sd rw - exfat /dev/sdb1 rw
            """
        let table = MountTable(MountTable.parse(text))
        XCTAssertEqual(table.mounts.count, 4)
        XCTAssertEqual(table.mount(containing: "/media/sd card/appliance")?.type, "vfat")
        XCTAssertEqual(table.mount(containing: "/media/sd card/appliance")?.mountPoint, "/media/sd card")
        XCTAssertEqual(table.mount(containing: "/media/sd")?.source, "/dev/sdb1")
        XCTAssertEqual(
            table.mount(containing: "/media/sdx/data")?.type, "ext4", "a prefix of the name is not a parent folder")
        XCTAssertEqual(table.mount(containing: "/var/lib/appliance")?.mountPoint, "/")
    }

    func testCameraModesFromDeviceMonitorCaps() {
        let caps =
            "video/x-raw, format=(string)YUY2, width=(int)1280, height=(int)720, pixel-aspect-ratio=(fraction)1/1, "
            + "framerate=(fraction){ 10/1, 5/1 }; video/x-raw, format=(string)YUY2, width=(int)640, height=(int)480, "
                + """
                framerate=(fraction){ 30/1, 15/1 }; image/jpeg, width=(int)1920, height=(int)1080, \
                framerate=(fraction)30/1; 
                """
            + "image/jpeg, width=(int)1280, height=(int)720, framerate=(fraction)[ 1/1, 60/1 ]; "
                + """
                video/x-raw(memory:DMABuf), format=(string){ NV12, YUY2 }, width=(int)320, height=(int)240, \
                framerate=(fraction)30000/1001
                """
        let modes = CameraMode.parse(caps)
        XCTAssertEqual(modes.count, 6)
        XCTAssertEqual(modes[0], CameraMode(format: "YUY2", width: 1280, height: 720, fps: 10, rates: [10, 5]))
        XCTAssertEqual(
            modes[3], CameraMode(format: "MJPG", width: 1280, height: 720, fps: 60, rates: [60, 1], rateIsRange: true))
        XCTAssertTrue(modes[3].offers(rate: 25), "a range offers every rate inside it")
        XCTAssertFalse(modes[0].offers(rate: 30))
        XCTAssertEqual(modes[4].rates.first ?? 0, 29.97, accuracy: 0.001)
        XCTAssertEqual(modes[4].format, "NV12")
        XCTAssertEqual(
            CameraMode.summary(modes),
            "YUY2 1280x720@10, 640x480@30, 320x240@29.97; MJPG 1920x1080@30, 1280x720@60; NV12 320x240@29.97")
        XCTAssertEqual(
            CameraMode.summary(modes, limit: 1),
            "YUY2 1280x720@10 (+2 more); MJPG 1920x1080@30 (+1 more); NV12 320x240@29.97")
        XCTAssertEqual(CameraMode.bestFps(modes, width: 1280, height: 720), 60)
        XCTAssertEqual(CameraMode.bestFps(modes, width: 1920, height: 1080), 30)
        XCTAssertNil(CameraMode.bestFps(modes, width: 3840, height: 2160))
        XCTAssertEqual(CameraMode.parse("garbage; video/x-raw, format=(string)GRAY8"), [], "no size, no mode")
    }

    func testMissingElementsNameTheirPackage() {
        XCTAssertEqual(
            PluginPackages.missingElement(
                in: #"pipeline fragment encoders/x264.gst: no element "x264enc" -- in: x264enc"#), "x264enc")
        XCTAssertNil(PluginPackages.missingElement(in: "could not link"))
        XCTAssertEqual(
            PluginPackages.fix(forMissing: "x264enc"),
            "install gstreamer1.0-plugins-ugly (apt install gstreamer1.0-plugins-ugly)")
        XCTAssertEqual(
            PluginPackages.fix(forMissing: "avenc_aac"), "install gstreamer1.0-libav (apt install gstreamer1.0-libav)")
        XCTAssertTrue(PluginPackages.fix(forMissing: "foosrc").contains("gst-inspect-1.0 foosrc"))
    }

    func testClockBeforeTheFloorFailsAndUnsynchronisedWarns() {
        let epoch = ClockCheck.judge(now: Date(timeIntervalSince1970: 3600), kernelState: 5, hasRTC: false)
        XCTAssertEqual(epoch.status, .fail)
        XCTAssertTrue(epoch.detail.hasPrefix("the clock says 1970-01-01 01:00:00 UTC"), epoch.detail)
        XCTAssertTrue(epoch.detail.contains("clip dates will be wrong"))
        XCTAssertEqual(epoch.fix, "enable NTP (timedatectl set-ntp true, systemd-timesyncd) or fit an RTC")
        let later = ClockCheck.floor.addingTimeInterval(86_400 * 30)
        let unsynced = ClockCheck.judge(now: later, kernelState: 5, hasRTC: true)
        XCTAssertEqual(unsynced.status, .warn)
        XCTAssertTrue(unsynced.detail.contains("not synchronised"))
        XCTAssertTrue(unsynced.detail.contains("an RTC is fitted"))
        XCTAssertFalse(unsynced.fix?.contains("fit an RTC") ?? true, "no advice to fit what is there")
        let synced = ClockCheck.judge(now: later, kernelState: 0, hasRTC: false)
        XCTAssertEqual(
            synced.line, "PASS  clock: \(ClockCheck.format(later)), synchronised; no RTC (/sys/class/rtc/rtc0 absent)")
        XCTAssertEqual(ClockCheck.format(ClockCheck.floor), "2026-11-01 00:00:00 UTC")
    }

    func testTheWebCertificateCheckShowsTheFingerprintAndRefusesAMismatchedKey() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "doctor-tls-\(UUID().uuidString.prefix(8))"
        ).path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        var config = ApplianceConfig()
        config.dataDir = folder
        XCTAssertEqual(WebCertificateCheck.run(config).status, .pass, "plain HTTP on loopback")
        config.web.listen = "0.0.0.0:8080"
        config.web.tls = "off"
        XCTAssertEqual(WebCertificateCheck.run(config).status, .warn)
        config.web.tls = "auto"
        let before = WebCertificateCheck.run(config)
        XCTAssertEqual(before.status, .pass)
        XCTAssertTrue(before.detail.contains("makes its own certificate at its first start"), before.detail)
        let made = try CertificateSource(config: config).load().identity
        let after = WebCertificateCheck.run(config)
        XCTAssertEqual(after.status, .pass)
        XCTAssertTrue(after.detail.contains("SHA-256 \(made.fingerprint)"), after.detail)
        // A user's certificate with another certificate's key.
        var elsewhere = config
        elsewhere.dataDir = folder + "/other"
        let other = try CertificateSource(config: elsewhere).load().identity
        try made.certificateChainPEM.write(toFile: folder + "/user.crt", atomically: true, encoding: .utf8)
        try other.privateKeyPEM.write(toFile: folder + "/user.key", atomically: true, encoding: .utf8)
        config.web.certFile = folder + "/user.crt"
        config.web.keyFile = folder + "/user.key"
        let mismatched = WebCertificateCheck.run(config)
        XCTAssertEqual(mismatched.status, .fail)
        XCTAssertTrue(mismatched.detail.contains("does not belong to the certificate"), mismatched.detail)
    }

    func testDeviceModeBits() {
        let node = DeviceNode(path: "/dev/video0", uid: 0, gid: 44, mode: 0o20660)
        XCTAssertEqual(node.mode, 0o660, "only permission bits are kept")
        XCTAssertTrue(node.readWrite(uid: 1000, groups: [44]))
        XCTAssertFalse(node.readWrite(uid: 1000, groups: [29]))
        XCTAssertTrue(node.readWrite(uid: 0, groups: []), "root")
        XCTAssertTrue(DeviceNode(path: "/dev/null", uid: 0, gid: 0, mode: 0o666).readWrite(uid: 1000, groups: []))
        XCTAssertFalse(
            DeviceNode(path: "/dev/x", uid: 1000, gid: 0, mode: 0o466).readWrite(uid: 1000, groups: [0]),
            "owner bits decide for the owner")
        XCTAssertTrue(
            DeviceNode(path: "/data", uid: 1000, gid: 1000, mode: 0o755).writableFolder(uid: 1000, groups: []))
        XCTAssertFalse(DeviceNode(path: "/data", uid: 0, gid: 0, mode: 0o755).writableFolder(uid: 1000, groups: [0]))
    }

    func testPermissionsJudgeTheServiceUserByItsGroups() {
        let groups: [String: gid_t] = ["video": 44, "audio": 29, "input": 105, "gpio": 997]
        let camera = PermissionsCheck.Node(
            node: DeviceNode(path: "/dev/video0", uid: 0, gid: 44, mode: 0o660), configured: true)
        let chip = PermissionsCheck.Node(
            node: DeviceNode(path: "/dev/gpiochip0", uid: 0, gid: 0, mode: 0o600), configured: false)
        let me = UserAccount(name: "pi", uid: 1000, groups: [1000])
        let service = UserAccount(name: "appliance", uid: 999, groups: [999, 44, 29, 105, 997])

        let good = PermissionsCheck.judge(
            nodes: [camera], service: service, current: me, groups: groups, currentCanUse: { _ in false })
        XCTAssertEqual(good.status, .pass, good.line)
        XCTAssertTrue(
            good.detail.contains("service user appliance is in groups video, audio, input, gpio"), good.detail)
        XCTAssertTrue(
            good.detail.contains("you (pi) cannot open /dev/video0; that is fine for the service"), good.detail)

        let noVideo = UserAccount(name: "appliance", uid: 999, groups: [999, 29, 105, 997])
        let bad = PermissionsCheck.judge(
            nodes: [camera], service: noVideo, current: me, groups: groups, currentCanUse: { _ in true })
        XCTAssertEqual(bad.status, .fail)
        XCTAssertEqual(bad.detail, "appliance is not in group video, which owns /dev/video0")
        XCTAssertEqual(bad.fix, "usermod -aG video appliance, then restart the service")

        let rootOnlyChip = PermissionsCheck.judge(
            nodes: [camera, chip], service: service, current: me, groups: groups, currentCanUse: { _ in true })
        XCTAssertEqual(rootOnlyChip.status, .warn, "an unconfigured GPIO chip only warns")
        XCTAssertTrue(
            rootOnlyChip.detail.hasPrefix("appliance cannot read and write /dev/gpiochip0 (root:root 0600)"),
            rootOnlyChip.detail)
        XCTAssertTrue(rootOnlyChip.fix?.contains("udev rule") ?? false)

        let noService = PermissionsCheck.judge(
            nodes: [camera], service: nil, current: me, groups: groups, currentCanUse: { _ in false })
        XCTAssertEqual(noService.status, .fail, "without a service user, the user running doctor is judged")
        XCTAssertEqual(noService.fix, "usermod -aG video pi")
        let nothing = PermissionsCheck.judge(
            nodes: [], service: nil, current: me, groups: groups, currentCanUse: { _ in false })
        XCTAssertEqual(
            nothing.line,
            """
            PASS  permissions: no service user appliance: judged for pi, who runs doctor; no camera, capture, \
            input or GPIO device nodes here
            """
        )
    }

    func testBackupAnswersAreClassified() {
        var backup = ApplianceConfig.Backup()
        backup.url = "https://dav.example/me"
        backup.username = "me"
        func judge(_ status: Int, collection: Bool = true, location: String? = nil, password: Bool = true)
            -> DoctorCheck
        {
            BackupCheck.judge(
                .init(status: status, isCollection: collection, location: location), url: backup.url, backup: backup,
                hasPassword: password)
        }
        XCTAssertEqual(
            judge(207).line, "PASS  backup: https://dav.example/me answers as me (PROPFIND: HTTP 207, a folder)")
        XCTAssertEqual(judge(207, collection: false).status, .fail)
        XCTAssertEqual(judge(401).status, .fail)
        XCTAssertTrue(judge(403).detail.hasPrefix("the server refused the credentials as me (HTTP 403)"))
        XCTAssertTrue(judge(401, password: false).detail.contains("APPLIANCE_BACKUP_PASSWORD is not set"))
        XCTAssertEqual(judge(404).status, .warn, "the uploader creates the folder")
        XCTAssertEqual(
            judge(301, location: "https://dav.example/me/").fix, "set [backup] url to https://dav.example/me/")
        XCTAssertEqual(judge(405).status, .fail)
        XCTAssertEqual(judge(500).status, .fail)
        XCTAssertEqual(
            BackupCheck.plainReason("network: connection reset (error set): Connection refused) (errno: 111)"),
            "connection refused (nothing listens there)")
    }

    func testMotionSaysWhetherItRunsAtWhatRateAndWhatAFrameCosts() throws {
        var config = ApplianceConfig()
        let off = MotionCheck.run(config)
        XCTAssertEqual(off.status, .pass)
        XCTAssertEqual(off.detail, "off ([motion] enabled = false)")
        config.motion.enabled = true
        config.motion.zones = [MotionSettings.Zone(name: "door", area: .whole)]
        let on = MotionCheck.run(config)
        XCTAssertTrue(on.detail.hasPrefix("on: 5 frames a second at 160x90 of the 1280x720 picture, "), on.detail)
        XCTAssertTrue(on.detail.contains(" ms a frame (") && on.detail.hasSuffix(", zones door"), on.detail)
        XCTAssertGreaterThan(MotionCheck.timeDetector(settings: MotionSettings(), width: 160, height: 90), 0)
    }

    func testTheCamerasSoundNamesTheCamerasThatCanGiveIt() throws {
        let config = try ConfigLoader.parse(
            """
            [audio]
            source = "camera"
            [[camera]]
            name = "main"
            source = "test"
            [[camera]]
            name = "door"
            source = "rtsp"
            url = "rtsp://192.0.2.1/live"
            """, file: "t")
        let check = MicrophoneCheck.run(config.audio, cameras: config.cameras)
        XCTAssertEqual(
            check.line, "PASS  microphone: the shown IP camera's sound (door); silence while another camera is shown")
        let none = MicrophoneCheck.run(config.audio, cameras: [config.cameras[0]])
        XCTAssertEqual(none.status, .warn)
        XCTAssertTrue(none.detail.contains("no camera is an IP camera"), none.detail)
    }

    func testConfigFailureNamesTheKeyAndLine() {
        let error = ConfigError(
            file: "/etc/appliance.toml", line: 12, key: "video.framerate", message: "expected an integer")
        let check = ConfigCheck.failed(error, path: "/etc/appliance.toml")
        XCTAssertEqual(
            check.line,
            """
            FAIL  config: /etc/appliance.toml:12: video.framerate: expected an integer -- fix: correct \
            video.framerate in /etc/appliance.toml line 12
            """
        )
    }
}
