import ApplianceBase
import Foundation
import XCTest

@testable import Settings

final class ConfigTests: XCTestCase {
    private func error(_ text: String) -> ConfigError? { configError(text) }

    private var repoRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    func testEmbeddedDefaultIsConfigApplianceToml() throws {
        let file = try String(contentsOf: repoRoot.appendingPathComponent("Config/appliance.toml"), encoding: .utf8)
        XCTAssertEqual(DefaultConfig.text + "\n", file, "run `make embed-config` after editing Config/appliance.toml")
    }

    func testDefaultsMatchTheDocumentedProfile() throws {
        let config = try ConfigLoader.load(path: nil)
        XCTAssertEqual(config, ApplianceConfig(), "the file lists every default")
        XCTAssertEqual(config.video.width, 1280)
        XCTAssertEqual(config.video.height, 720)
        XCTAssertEqual(config.video.framerate, 30)
        XCTAssertEqual(config.video.encoder, "auto")
        XCTAssertEqual(config.video.speedPreset, "veryfast")
        XCTAssertEqual(config.video.bitrateKbps, 4000)
        XCTAssertEqual(config.audio.rate, 48000)
        XCTAssertEqual(config.audio.channels, 2)
        XCTAssertEqual(config.audio.bitrateKbps, 128)
        XCTAssertEqual(config.dataDir, "./data")
        XCTAssertEqual(config.socketPath, "./data/ctl.sock")
    }

    func testShippedConfigsParse() throws {
        for name in ["appliance.toml", "demo.toml", "dashcam.toml", "kiosk.toml"] {
            XCTAssertNoThrow(try ConfigLoader.load(path: repoRoot.appendingPathComponent("Config/\(name)").path), name)
        }
        let demo = try ConfigLoader.load(path: repoRoot.appendingPathComponent("Config/demo.toml").path)
        XCTAssertEqual(demo.cameras.map(\.name), ["front", "back"])
    }

    func testErrorsNameKeyAndLine() throws {
        XCTAssertEqual(error("\n[video]\nwidth = \"big\"\n")?.line, 3)
        XCTAssertEqual(error("\n[video]\nwidth = \"big\"\n")?.key, "video.width")
        XCTAssertEqual(
            error("[audio]\nsource = \"usb\"\n")?.description,
            "t.toml:2: audio.source: unknown value 'usb' (one of: auto, alsa, test, camera, none)")
        XCTAssertEqual(try ConfigLoader.parse("[audio]\nsource = \"camera\"\n", file: "t").audio.source, "camera")
        XCTAssertEqual(error("[recording]\nsync_interval_s = 0\n")?.key, "recording.sync_interval_s")
        XCTAssertEqual(
            error("[recording]\nfile_layout = \"moov-at-end\"\n")?.description,
            "t.toml:2: recording.file_layout: must be one of fragmented, reserved, found 'moov-at-end'")
        XCTAssertEqual(error("[video]\nwidth = 1281\n")?.key, "video.width", "odd sizes cannot be I420")
        XCTAssertEqual(error("colour = 1\n")?.description, "t.toml:1: colour: unknown key")
        XCTAssertEqual(error("[backup]\nurl = \"ftp://x\"\n")?.key, "backup.url")
        XCTAssertEqual(
            error("[backup]\nurl = \"s3://b/p\"\n")?.description,
            "t.toml: backup.access_key: is needed for an s3:// url")
        XCTAssertEqual(error("[backup]\nurl = \"s3:///p\"\naccess_key = \"k\"\n")?.key, "backup.url", "no bucket")
        XCTAssertEqual(
            error("[backup]\nurl = \"s3://b\"\naccess_key = \"k\"\npart_size_mb = 4\n")?.key, "backup.part_size_mb",
            "S3's smallest part is 5 MiB")
        XCTAssertEqual(
            error("[backup]\nurl = \"s3://b\"\naccess_key = \"k\"\nendpoint = \"minio:9000\"\n")?.key, "backup.endpoint"
        )
        XCTAssertEqual(
            error("[backup]\nurl = \"s3://b\"\naccess_key = \"k\"\nserver_side_encryption = \"yes\"\n")?.key,
            "backup.server_side_encryption")
        let s3 = try ConfigLoader.parse("[backup]\nurl = \"s3://clips/{device}\"\naccess_key = \"k\"\n", file: "t")
            .backup
        XCTAssertEqual(
            [s3.region, s3.pathStyle, "\(s3.partSizeMb)", "\(s3.isS3)"], ["us-east-1", "auto", "8", "true"])
        XCTAssertNotNil(error("[video\n")?.line)
    }

    func testFileLayoutDefaultsToWritingOnce() throws {
        XCTAssertEqual(try ConfigLoader.parse("", file: "t").recording.fileLayout, .fragmented)
        XCTAssertEqual(
            try ConfigLoader.parse("[recording]\nfile_layout = \"reserved\"\n", file: "t").recording.fileLayout,
            .reserved)
    }

    func testCameraTablesAreValidated() {
        let two = "[[camera]]\nname = \"a\"\n[[camera]]\nname = \"a\"\n"
        XCTAssertEqual(error(two)?.key, "camera[1].name")
        XCTAssertEqual(error(two)?.line, 4)
        XCTAssertEqual(error("[[camera]]\nname = \"a\"\nrotate = 45\n")?.key, "camera[0].rotate")
        XCTAssertEqual(error("[[camera]]\nname = \"a\"\nsource = \"pipeline\"\n")?.key, "camera[0].pipeline")
        XCTAssertEqual(error("[[camera]]\nname = \"a b\"\n")?.key, "camera[0].name")
        let badMode = error("[[camera]]\nname = \"a\"\nmode = \"720p\"\n")
        XCTAssertEqual(badMode?.key, "camera[0].mode")
        XCTAssertEqual(badMode?.line, 3)
        XCTAssertTrue(badMode?.message.contains("WIDTHxHEIGHT@FPS") ?? false)
        let mode = try? ConfigLoader.parse("[[camera]]\nname = \"a\"\nmode = \"1920x1080@30 mjpeg\"\n", file: "t")
            .cameras[0].mode
        XCTAssertEqual(mode, ModeRequest(width: 1920, height: 1080, fps: 30, format: "MJPG"))
    }

    func testTheSpeakerIsFoundByItselfAndItsKeysAreChecked() throws {
        let defaults = try ConfigLoader.parse("", file: "t").speaker
        XCTAssertEqual(defaults, ApplianceConfig.Speaker(device: "auto", pipeline: "", volume: 1.0, feedback: false))
        let set = try ConfigLoader.parse("[speaker]\ndevice = \"hw:1,0\"\nvolume = 0.5\nfeedback = true\n", file: "t")
            .speaker
        XCTAssertEqual(set.device, "hw:1,0")
        XCTAssertEqual(set.volume, 0.5)
        XCTAssertTrue(set.feedback)
        XCTAssertEqual(defaults.echoCancel, "auto")
        XCTAssertEqual(
            try ConfigLoader.parse("[speaker]\necho_cancel = \"off\"\n", file: "t").speaker.echoCancel, "off")
        XCTAssertEqual(error("[speaker]\necho_cancel = true\n")?.key, "speaker.echo_cancel")
        XCTAssertEqual(error("[speaker]\necho_cancel = \"maybe\"\n")?.key, "speaker.echo_cancel")
        XCTAssertEqual(error("[speaker]\nvolume = 9\n")?.key, "speaker.volume")
        XCTAssertEqual(error("[speaker]\ndevice = \"\"\n")?.key, "speaker.device")
        XCTAssertEqual(error("[speaker]\nchime = true\n")?.description, "t.toml:2: speaker.chime: unknown key")
    }

    func testNetworkCamerasNeedAURLWithoutCredentials() throws {
        let camera = "[[camera]]\nname = \"door\"\nsource = \"rtsp\"\n"
        XCTAssertEqual(error(camera)?.key, "camera[0].url")
        XCTAssertEqual(error(camera + "url = \"http://cam/live\"\n")?.key, "camera[0].url")
        let inURL = error(camera + "url = \"rtsp://admin:hunter2@cam/live\"\n")
        XCTAssertEqual(inURL?.key, "camera[0].url")
        XCTAssertTrue(inURL?.message.contains("password_file") ?? false, inURL?.message ?? "")
        XCTAssertEqual(error(camera + "url = \"rtsp://cam/live\"\ntransport = \"quic\"\n")?.key, "camera[0].transport")
        XCTAssertEqual(error(camera + "url = \"rtsp://cam/live\"\nlatency_ms = -1\n")?.key, "camera[0].latency_ms")
        let parsed = try ConfigLoader.parse(
            camera
                + """
                url = \"rtsps://cam:322/s1\"\nusername = \"admin\"\npassword_file = \"/p\"\ntransport = \
                \"tcp\"\nlatency_ms = 0\n
                """,
            file: "t"
        ).cameras[0]
        XCTAssertEqual(
            [parsed.url, parsed.username, parsed.passwordFile, parsed.transport],
            ["rtsps://cam:322/s1", "admin", "/p", "tcp"])
        XCTAssertEqual(parsed.latencyMs, 0)
    }

    func testIntegersAreAcceptedWhereNumbersAreExpected() throws {
        let config = try ConfigLoader.parse(
            "[recording]\nmax_duration_s = 10\n[video]\nkeyframe_interval_s = 2\n", file: "t")
        XCTAssertEqual(config.recording.maxDurationS, 10)
        XCTAssertEqual(config.video.keyframeIntervalS, 2)
    }

    func testEverySettingIsActive() throws {
        XCTAssertEqual(try ConfigLoader.load(path: nil).inactiveSettings, [])
        let config = try ConfigLoader.parse(
            "[web]\nlisten = \"127.0.0.1:9090\"\n[backup]\nurl = \"https://cloud.example/dav\"\n", file: "t")
        XCTAssertEqual(config.inactiveSettings, [])
    }

    func testWebSettings() throws {
        let config = try ConfigLoader.parse(
            """
            [web]\nlisten = \"[::]:8443\"\ntoken_file = \"/etc/appliance/web.token\"\npublic_read = true\nlive_fps \
            = 10\n
            """,
            file: "t")
        XCTAssertEqual(config.web.hostAndPort?.host, "::")
        XCTAssertEqual(config.web.hostAndPort?.port, 8443)
        XCTAssertFalse(config.web.isLoopback)
        XCTAssertTrue(config.web.publicRead)
        XCTAssertEqual(config.web.liveFps, 10)
        XCTAssertFalse(try ConfigLoader.parse("[web]\nlisten = \"off\"\n", file: "t").web.enabled)
        func error(_ toml: String) -> ConfigError? {
            do {
                _ = try ConfigLoader.parse(toml, file: "t")
                return nil
            } catch { return error as? ConfigError }
        }
        // Reachable from other machines without a password: allowed (accounts log in; until the first one, the
        // dashboard serves this machine only), and HTTPS by default there.
        let open = try ConfigLoader.parse("[web]\nlisten = \"0.0.0.0:8080\"\n", file: "t").web
        XCTAssertTrue(open.servesTLS)
        XCTAssertEqual(open.tokenFile, "")
        XCTAssertEqual(error("[web]\nlisten = \"8080\"\n")?.key, "web.listen")
        XCTAssertEqual(error("[web]\nlisten = \"127.0.0.1:99999\"\n")?.key, "web.listen")
        XCTAssertEqual(error("[web]\nlive_fps = 0\n")?.key, "web.live_fps")
        XCTAssertEqual(error("[web]\npublic_reed = true\n")?.key, "web.public_reed")
        XCTAssertEqual(error("[web]\ntls = \"yes\"\n")?.key, "web.tls")
        let half = error("[web]\ncert_file = \"/etc/ssl/cam.pem\"\n")
        XCTAssertEqual(half?.key, "web.key_file")
        XCTAssertTrue(
            half?.description.contains("cert_file and key_file go together") ?? false, "\(String(describing: half))")
    }

    /// `auto` (the default) is HTTPS wherever other machines can connect, plain HTTP on loopback.
    func testTLSFollowsTheListenAddressUnlessSetOnOrOff() throws {
        func web(_ lines: String) throws -> ApplianceConfig.Web {
            try ConfigLoader.parse("[web]\ntoken_file = \"/etc/appliance/web.token\"\n" + lines, file: "t").web
        }
        XCTAssertEqual(try web("").tls, "auto")
        XCTAssertFalse(try web("").servesTLS, "the default listen is loopback")
        XCTAssertTrue(try web("listen = \"0.0.0.0:8080\"\n").servesTLS)
        XCTAssertTrue(try web("listen = \"[::]:8080\"\n").servesTLS)
        XCTAssertTrue(try web("tls = \"on\"\n").servesTLS)
        let off = try web("listen = \"0.0.0.0:8080\"\ntls = \"off\"\n")
        XCTAssertFalse(off.servesTLS)
        XCTAssertTrue(off.isPlainOnNetwork)
        let own = try web("tls = \"on\"\ncert_file = \"/etc/ssl/cam.pem\"\nkey_file = \"/etc/ssl/cam.key\"\n")
        XCTAssertEqual(own.certFile, "/etc/ssl/cam.pem")
        XCTAssertEqual(own.keyFile, "/etc/ssl/cam.key")
        // WebRTC: 4 viewers by default, 0 turns it off; a STUN server as stun://host:port.
        XCTAssertEqual(try ConfigLoader.load(path: nil).web.webrtcViewers, 4)
        let webrtc = try ConfigLoader.parse(
            "[web]\nwebrtc_viewers = 0\nstun = \"stun://stun.example.net:3478\"\n", file: "t"
        ).web
        XCTAssertEqual(webrtc.webrtcViewers, 0)
        XCTAssertEqual(webrtc.stun, "stun://stun.example.net:3478")
        XCTAssertEqual(error("[web]\nwebrtc_viewers = 17\n")?.key, "web.webrtc_viewers")
        XCTAssertEqual(error("[web]\nstun = \"stun.example.net:3478\"\n")?.key, "web.stun")
        XCTAssertEqual(error("[web]\nstun = \"stun://stun.example.net\"\n")?.key, "web.stun")
    }

    func testRTSPSettings() throws {
        let defaults = try ConfigLoader.load(path: nil).rtsp
        XCTAssertFalse(defaults.enabled, "off unless asked for")
        XCTAssertEqual(defaults.path, "live")
        let config = try ConfigLoader.parse(
            """
            [web]\ntoken_file = \"/etc/appliance/web.token\"\n[rtsp]\nlisten = \"0.0.0.0:8554\"\npath = \
            \"cam/front\"\n
            """,
            file: "t")
        XCTAssertTrue(config.rtsp.enabled)
        XCTAssertEqual(config.rtsp.hostAndPort?.host, "0.0.0.0")
        XCTAssertEqual(config.rtsp.hostAndPort?.port, 8554)
        XCTAssertEqual(config.rtsp.path, "cam/front")
        XCTAssertTrue(try ConfigLoader.parse("[rtsp]\nlisten = \"127.0.0.1:8554\"\n", file: "t").rtsp.isLoopback)
        func error(_ toml: String) -> ConfigError? {
            do {
                _ = try ConfigLoader.parse(toml, file: "t")
                return nil
            } catch { return error as? ConfigError }
        }
        // Reachable from other machines without the web's password file: refused, naming the key and the fix.
        let open = error("[rtsp]\nlisten = \"0.0.0.0:8554\"\n")
        XCTAssertEqual(open?.key, "rtsp.listen")
        XCTAssertTrue(open?.description.contains("[web] token_file") ?? false, "\(String(describing: open))")
        XCTAssertEqual(error("[rtsp]\nlisten = \"8554\"\n")?.key, "rtsp.listen")
        for path in ["", "/live", "../etc", "live stream", "live?x=1"] {
            XCTAssertEqual(error("[rtsp]\nlisten = \"127.0.0.1:8554\"\npath = \"\(path)\"\n")?.key, "rtsp.path", path)
        }
        XCTAssertEqual(error("[rtsp]\nport = 8554\n")?.key, "rtsp.port")
    }

    func testEncoderChoiceSettings() throws {
        let defaults = try ConfigLoader.load(path: nil).video
        XCTAssertEqual(defaults.encoder, "auto", "a trial picks the encoder unless one is named")
        XCTAssertEqual(
            defaults.encoderCandidates,
            ["v4l2h264", "vah264", "vah264lp", "vaapih264", "nvh264", "qsvh264", "openh264", "x264"])
        XCTAssertEqual(defaults.encoderTrialLimit, .seconds(10))
        let set = try ConfigLoader.parse(
            "[video]\nencoder_candidates = [\"openh264\", \"x264\"]\nencoder_trial_s = 2.5\n", file: "t"
        ).video
        XCTAssertEqual(set.encoderCandidates, ["openh264", "x264"])
        XCTAssertEqual(set.encoderTrialLimit, .milliseconds(2500))
        for bad in ["[]", "[\"auto\"]", "[\"../x\"]", "[1]", "\"x264\""] {
            XCTAssertEqual(configError("[video]\nencoder_candidates = \(bad)\n")?.key, "video.encoder_candidates", bad)
        }
        XCTAssertEqual(configError("[video]\nencoder_trial_s = 0\n")?.key, "video.encoder_trial_s")
    }

    func testONVIFSettings() throws {
        let defaults = try ConfigLoader.load(path: nil)
        XCTAssertFalse(defaults.onvif.enabled, "off unless asked for")
        XCTAssertEqual(defaults.onvif.discovery(web: defaults.web)?.host, "127.0.0.1", "discovery follows [web] listen")
        XCTAssertEqual(defaults.onvif.discovery(web: defaults.web)?.port, 3702)
        let lan = try ConfigLoader.parse(
            """
            [web]
            listen = "[::]:8080"
            token_file = "/etc/appliance/web.token"
            [rtsp]
            listen = "0.0.0.0:8554"
            [onvif]
            enabled = true
            name = "front door"
            """, file: "t")
        XCTAssertEqual(lan.onvif.discovery(web: lan.web)?.host, "0.0.0.0", "every interface, as the web server listens")
        XCTAssertEqual(lan.onvif.name, "front door")
        var off = lan.onvif
        off.listen = "off"
        XCTAssertNil(off.discovery(web: lan.web))
        let loopback = "[web]\nlisten = \"127.0.0.1:8080\"\n[rtsp]\nlisten = \"127.0.0.1:8554\"\n"
        XCTAssertTrue(
            try ConfigLoader.parse(loopback + "[onvif]\nenabled = true\n", file: "t").onvif.enabled,
            "loopback needs no password")
        let cases: [(String, String, String)] = [
            ("[onvif]\nenabled = true\n", "onvif.enabled", "[rtsp] listen"),
            ("[web]\nlisten = \"off\"\n[onvif]\nenabled = true\n", "onvif.enabled", "[web] listen"),
            (loopback + "[onvif]\nenabled = true\nlisten = \"0.0.0.0:3702\"\n", "onvif.listen", "[web] token_file"),
            (loopback + "[onvif]\nlisten = \"[::]:3702\"\n", "onvif.listen", "IPv4 host:port"),
            (loopback + "[onvif]\nlisten = \"3702\"\n", "onvif.listen", "IPv4 host:port"),
            (loopback + "[onvif]\nport = 3702\n", "onvif.port", "unknown key"),
        ]
        for (toml, key, says) in cases {
            let refused = configError(toml)
            XCTAssertEqual(refused?.key, key, toml)
            XCTAssertTrue(refused?.description.contains(says) ?? false, "\(String(describing: refused))")
        }
    }

    func testMQTTSettings() throws {
        let defaults = try ConfigLoader.load(path: nil).mqtt
        XCTAssertFalse(defaults.enabled, "off unless a broker is named")
        XCTAssertEqual(defaults.discoveryPrefix, "homeassistant")
        let plain = try ConfigLoader.parse("[mqtt]\nurl = \"mqtt://broker.lan\"\n", file: "t").mqtt
        XCTAssertEqual(plain.broker?.host, "broker.lan")
        XCTAssertEqual(plain.broker?.port, 1883)
        XCTAssertEqual(plain.broker?.tls, false)
        let tls = try ConfigLoader.parse("[mqtt]\nurl = \"mqtts://[::1]:18883\"\ndiscovery_prefix = \"\"\n", file: "t")
            .mqtt
        XCTAssertEqual(tls.broker?.host, "::1")
        XCTAssertEqual(tls.broker?.port, 18883)
        XCTAssertEqual(tls.broker?.tls, true)
        XCTAssertEqual(try ConfigLoader.parse("[mqtt]\nurl = \"mqtts://b\"\n", file: "t").mqtt.broker?.port, 8883)
        func error(_ toml: String) -> ConfigError? {
            do {
                _ = try ConfigLoader.parse(toml, file: "t")
                return nil
            } catch { return error as? ConfigError }
        }
        for url in [
            "http://broker", "broker:1883", "mqtt://", "mqtt://user:pw@broker", "mqtt://broker/topic",
            "mqtt://broker:0",
        ] {
            XCTAssertEqual(error("[mqtt]\nurl = \"\(url)\"\n")?.key, "mqtt.url", url)
        }
        for prefix in ["a/#", "a/+/b", "/a", "a/", "a//b"] {
            XCTAssertEqual(
                error("[mqtt]\nurl = \"mqtt://b\"\ntopic_prefix = \"\(prefix)\"\n")?.key, "mqtt.topic_prefix", prefix)
        }
        XCTAssertEqual(error("[mqtt]\nurl = \"mqtt://b\"\nclient_id = \"two words\"\n")?.key, "mqtt.client_id")
        XCTAssertEqual(error("[mqtt]\nport = 1883\n")?.key, "mqtt.port")
    }
}
