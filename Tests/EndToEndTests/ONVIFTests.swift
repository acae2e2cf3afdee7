import ApplianceBase
import ApplianceProtocol
import Foundation
import TestSupport
import XCTest

/// The daemon as an ONVIF camera, met by the clients the field uses: Home Assistant's ONVIF library
/// (onvif-zeep-async, with onvif-parsers for its events) walks Home Assistant's own set-up and follows the events;
/// ffprobe plays the stream URI it was given with the credentials put in as Home Assistant does; the WSDiscovery
/// library finds the device over real multicast from another network namespace, and hears its Hello and Bye.
final class ONVIFTests: XCTestCase {
    static let password = "onvif-test-password"
    static let client = "Tests/ONVIF/ha_onvif_client.py"
    /// A still picture and the moving ball: motion on a switch.
    static let cameras = MotionTests.cameras

    /// A daemon with ONVIF on, its web server and RTSP on `host` (a token file: the password), motion on.
    func startDaemon(
        host: String = "127.0.0.1", discovery: String, web: String = "", extra: String = "",
        cameras: String = ONVIFTests.cameras
    ) throws -> (DaemonProcess, webPort: Int, rtspPort: Int) {
        try Self.startDevice(host: host, discovery: discovery, web: web, extra: extra, cameras: cameras)
    }

    /// `startDaemon` for other tests (the network cameras' discovery finds this device).
    static func startDevice(
        host: String = "127.0.0.1", discovery: String, web: String = "", extra: String = "",
        cameras: String = ONVIFTests.cameras
    ) throws -> (DaemonProcess, webPort: Int, rtspPort: Int) {
        let (webPort, rtspPort) = (FreePort.pick(), FreePort.pick())
        let daemon = try DaemonProcess(
            extra: """
                [video]
                width = 320
                height = 240
                [motion]
                enabled = true
                [web]
                listen = "\(host):\(webPort)"
                token_file = "TOKEN"
                \(web)
                [rtsp]
                listen = "\(host):\(rtspPort)"
                [onvif]
                enabled = true
                listen = "\(discovery)"
                name = "front door"
                \(extra)
                """, cameras: cameras)
        let token = daemon.directory.appendingPathComponent("token").path
        try (Self.password + "\n").write(toFile: token, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: token)
        let config = try String(contentsOfFile: daemon.configPath, encoding: .utf8).replacingOccurrences(
            of: "\"TOKEN\"", with: "\"\(token)\"")
        try config.write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        try daemon.start()
        return (daemon, webPort, rtspPort)
    }

    static var repository: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path
    }

    func testHomeAssistantsSetUpGetsTheStreamTheSnapshotAndTheEvents() throws {
        let discoveryPort = FreePort.pick()
        // A speaker: the media service then has an audio output (the RTSP backchannel's; RTSPBackchannelTests talks).
        let (daemon, webPort, rtspPort) = try startDaemon(
            discovery: "127.0.0.1:\(discoveryPort)", extra: "[speaker]\npipeline = \"fakesink\"")
        defer { daemon.stop() }
        XCTAssertEqual(try daemon.status().onvif?.authentication, "ws-usernametoken")
        XCTAssertTrue(try daemon.waitFor(20) { try daemon.status().onvif?.discovery == .serving }, daemon.log)
        let ctl = try daemon.ctl(["status"])
        XCTAssertTrue(
            ctl.stdout.contains(
                """
                onvif: http://127.0.0.1:\(webPort)/onvif/device_service (discovery on 127.0.0.1:\(discoveryPort) \
                [lo], 
                """
                    + "0 event subscriptions, login ws-usernametoken)"), ctl.stdout)
        let ha = try JSONLinesProcess(
            "/usr/bin/env",
            [
                "python3", Self.repository + "/" + Self.client, "--port", "\(webPort)",
                "--password", Self.password, "--audio-output",
            ])
        let flow = try XCTUnwrap(ha.step("config_flow", within: 60), "Home Assistant's config flow: \(ha.stderr)")
        XCTAssertEqual(flow["h264_profiles"] as? [String], ["main"])
        let mac = try XCTUnwrap(flow["mac"] as? String, "a MAC from GetNetworkInterfaces: Home Assistant's unique id")
        XCTAssertTrue(Self.macAddresses().contains(mac), "\(mac) is one of this machine's")
        XCTAssertEqual(flow["firmware"] as? String, ApplianceVersion.current)
        XCTAssertEqual(
            (flow["xaddrs"] as? [String: String])?["http://www.onvif.org/ver10/events/wsdl"],
            "http://127.0.0.1:\(webPort)/onvif/events_service")

        let setup = try XCTUnwrap(ha.step("device_setup", within: 30), ha.stderr)
        XCTAssertEqual(setup["date_time_type"] as? String, "NTP")
        XCTAssertLessThan(setup["skew_s"] as? Double ?? 99, 5, "Home Assistant warns past 5 s")
        XCTAssertEqual(setup["snapshot_uri"] as? Bool, true)
        let stream = try XCTUnwrap((setup["streams"] as? [String: [String: Any]])?["main"])
        XCTAssertEqual(stream["uri"] as? String, "rtsp://127.0.0.1:\(rtspPort)/live")
        XCTAssertEqual(
            [stream["width"], stream["height"], stream["framerate"], stream["bitrate"], stream["gov"]] as? [Int],
            [320, 240, 30, 4000, 30])
        XCTAssertEqual(stream["audio"] as? String, "AAC")
        let output = try XCTUnwrap(ha.step("audio_output", within: 30), ha.stderr)
        XCTAssertEqual(output["outputs"] as? [String], ["speaker"])
        XCTAssertEqual(output["output_tokens"] as? [String], ["speaker"])
        XCTAssertEqual(output["decoders"] as? [String], ["g711"])
        XCTAssertEqual(output["g711"] as? Bool, true)
        XCTAssertEqual(
            output["profile_output"] as? String, "speaker",
            "the profile carries the audio output (zeep read it by the schema) \(output)")
        XCTAssertEqual(output["profile_decoder"] as? String, "g711")

        let snapshot = try XCTUnwrap(ha.step("snapshot", within: 30), ha.stderr)
        XCTAssertEqual(
            snapshot["auth"] as? String, "basic", "Digest is refused, Basic works: Home Assistant keeps Basic")
        XCTAssertEqual(snapshot["jpeg"] as? Bool, true)
        try checkTheStreamPlays(uri: stream["uri"] as? String ?? "")

        try followTheEvents(ha, daemon)
        let wrong = try ProcessOutcome.run(
            "/usr/bin/env",
            [
                "python3", Self.repository + "/" + Self.client, "--port", "\(webPort)",
                "--password", Self.password, "--wrong-password",
            ], timeout: 60)
        XCTAssertTrue(
            wrong.stdout.contains(#""refused": true, "auth_error": true"#),
            "Home Assistant would ask for the password again: \(wrong.stdout) \(wrong.stderr)")
        XCTAssertTrue(
            daemon.log.contains(
                "ONVIF GetServices from 127.0.0.1 refused: Sender not authorized: wrong user name or password"),
            daemon.log)
    }

    /// Two channels are two profiles, as Home Assistant sets them up: each H.264 profile with its channel's
    /// picture, its stream URI playing that channel (320x240 and the rear's 320x180) and its snapshot a JPEG.
    func testEachChannelIsAProfileHomeAssistantSetsUp() throws {
        let (daemon, webPort, rtspPort) = try startDaemon(
            discovery: "off", cameras: Self.cameras + FrontAndRear.channels(front: "still", rear: "ball"))
        defer { daemon.stop() }
        let ha = try JSONLinesProcess(
            "/usr/bin/env",
            [
                "python3", Self.repository + "/" + Self.client, "--port", "\(webPort)", "--password", Self.password,
                "--setup-only",
            ])
        let flow = try XCTUnwrap(ha.step("config_flow", within: 60), "Home Assistant's config flow: \(ha.stderr)")
        XCTAssertEqual(flow["h264_profiles"] as? [String], ["main", "rear"])
        let setup = try XCTUnwrap(ha.step("device_setup", within: 30), ha.stderr)
        let streams = try XCTUnwrap(setup["streams"] as? [String: [String: Any]], "\(setup)")
        XCTAssertEqual(streams["main"]?["uri"] as? String, "rtsp://127.0.0.1:\(rtspPort)/live")
        XCTAssertEqual(streams["rear"]?["uri"] as? String, "rtsp://127.0.0.1:\(rtspPort)/live/rear")
        XCTAssertEqual([streams["rear"]?["width"], streams["rear"]?["height"]] as? [Int], [320, 180])
        XCTAssertNil(streams["rear"]?["audio"] as? String, "the microphone is the first channel's")
        XCTAssertTrue(ha.waitFor(60) { $0["step"] as? String == "done" } != nil, ha.stderr)
        let snapshots = ha.lines.filter { $0["step"] as? String == "snapshot" }
        XCTAssertEqual(snapshots.map { $0["token"] as? String }, ["main", "rear"])
        XCTAssertEqual(snapshots.map { $0["jpeg"] as? Bool }, [true, true], "\(snapshots)")
        try checkTheStreamPlays(uri: streams["rear"]?["uri"] as? String ?? "", picture: "320|height=180", audio: false)
    }

    /// Each channel's motion and recording are entities of their own in Home Assistant (its parsers tell them apart
    /// by source): the rear's ball is motion on the rear's entity while the front's still picture stays false, and
    /// the rear recording alone sets the rear's job state.
    func testEachChannelsMotionAndRecordingAreEntitiesOfTheirOwn() throws {
        let (daemon, webPort, _) = try startDaemon(
            discovery: "off", cameras: Self.cameras + FrontAndRear.channels(front: "still", rear: "ball"))
        defer { daemon.stop() }
        let ha = try JSONLinesProcess(
            "/usr/bin/env",
            ["python3", Self.repository + "/" + Self.client, "--port", "\(webPort)", "--password", Self.password])
        XCTAssertNotNil(ha.step("subscribed", within: 90), ha.stderr)
        // The parsers' unique id ends with the topic's last level and the message's source items.
        let event = { (name: String, uidEnd: String, value: Bool) -> [String: Any]? in
            ha.waitFor(40) {
                $0["step"] as? String == "event" && $0["name"] as? String == name && $0["value"] as? Bool == value
                    && ($0["uid"] as? String)?.hasSuffix(uidEnd) == true
            }
        }
        XCTAssertNotNil(
            event("Cell Motion Detection", "Motion_camera_analytics_motion", false),
            "the front's: \(ha.lines.suffix(6))")
        XCTAssertNotNil(
            event("Cell Motion Detection", "Motion_camera-rear_analytics_motion", true),
            "the rear's ball: \(ha.lines.suffix(6))")
        _ = try daemon.perform(.recordStart(title: nil, channel: "rear"))
        XCTAssertNotNil(event("Recording Job State", "JobState_recording-rear", true), "\(ha.lines.suffix(6))")
        let front = ha.lines.filter {
            $0["name"] as? String == "Cell Motion Detection"
                && ($0["uid"] as? String)?.hasSuffix("Motion_camera_analytics_motion") == true
        }
        XCTAssertEqual(front.compactMap { $0["value"] as? Bool }, [false], "the still front never moved: \(front)")
        XCTAssertFalse(
            ha.lines.contains {
                $0["name"] as? String == "Recording Job State" && $0["value"] as? Bool == true
                    && ($0["uid"] as? String)?.hasSuffix("JobState_recording") == true
            }, "the front does not record")
        ha.closeInput()
        XCTAssertNotNil(ha.step("done", within: 30))
    }

    /// Objects reach Home Assistant's ONVIF integration: with a model (made by the test: it calls the moving ball
    /// "person"), onvif-parsers reads the PeopleDetect topic as its "Person Detection" binary sensor, there (false)
    /// from the subscription on and true when the person is.
    func testAPersonIsHomeAssistantsPersonDetection() throws {
        let model = try ObjectTests.makeModel("yolo", directory: FileManager.default.temporaryDirectory.path)
        defer { try? FileManager.default.removeItem(atPath: model) }
        let (daemon, webPort, _) = try startDaemon(
            discovery: "127.0.0.1:\(FreePort.pick())",
            extra: """
                [objects]
                enabled = true
                model = "\(model)"
                input_width = 64
                input_height = 64
                min_score = 0.15
                threshold = 0.15
                """)
        defer { daemon.stop() }
        let ha = try JSONLinesProcess(
            "/usr/bin/env",
            [
                "python3", Self.repository + "/" + Self.client, "--port", "\(webPort)",
                "--password", Self.password,
            ])
        XCTAssertNotNil(ha.step("subscribed", within: 90), ha.stderr)
        let person = { (value: Bool, operation: String) -> [String: Any]? in
            ha.waitFor(40) {
                $0["step"] as? String == "event" && $0["name"] as? String == "Person Detection"
                    && $0["value"] as? Bool == value
                    && $0["operation"] as? String == operation
            }
        }
        let initial = try XCTUnwrap(
            person(false, "Initialized"), "the sensor exists before anyone comes: \(ha.lines.suffix(5))")
        XCTAssertEqual(initial["topic"] as? String, "tns1:RuleEngine/MyRuleDetector/PeopleDetect")
        _ = try daemon.switchCamera(.named("ball"))
        XCTAssertNotNil(person(true, "Changed"), "a person: \(ha.lines.suffix(5)) \(daemon.log.suffix(800))")
        ha.closeInput()
        XCTAssertNotNil(ha.step("done", within: 30))
    }

    /// An account signs in with its own name and password (PasswordText, over HTTPS: the device keeps no password a
    /// digest could be checked against); a viewer reads and streams but changes nothing.
    func testAViewerAccountReadsOverHTTPSAndChangesNothing() throws {
        let (daemon, webPort, rtspPort) = try startDaemon(discovery: "off", web: "tls = \"on\"")
        defer { daemon.stop() }
        XCTAssertEqual(
            try daemon.ctl(["user", "add", "vic", "--role", "viewer"], input: "vics-password-1\n").status, 0)
        let client = try ProcessOutcome.run(
            "/usr/bin/env",
            [
                "python3", Self.repository + "/Tests/ONVIF/onvif_account.py", "--host",
                "https://127.0.0.1", "--port", "\(webPort)", "--user", "vic",
                "--password", "vics-password-1",
            ], timeout: 90)
        XCTAssertEqual(client.status, 0, client.stderr)
        let steps = Dictionary(
            client.stdout.split(separator: "\n").compactMap { line -> (String, [String: Any])? in
                guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                    let step = object["step"] as? String
                else { return nil }
                return (step, object)
            }, uniquingKeysWith: { first, _ in first })
        let read = try XCTUnwrap(steps["read"], client.stdout + client.stderr)
        XCTAssertEqual(read["profiles"] as? [String], ["main"])
        XCTAssertEqual(read["stream_uri"] as? String, "rtsp://127.0.0.1:\(rtspPort)/live")
        let xaddrs = try XCTUnwrap(read["xaddrs"] as? [String: String])
        XCTAssertTrue(xaddrs.values.allSatisfy { $0.hasPrefix("https://127.0.0.1:\(webPort)/") }, "\(xaddrs)")
        let write = try XCTUnwrap(steps["write"])
        XCTAssertEqual(write["refused"] as? Bool, true)
        XCTAssertTrue((write["message"] as? String)?.contains("needs the admin role") == true, "\(write)")
        for step in ["digest", "wrong", "plain_http"] {
            let refusal = try XCTUnwrap(steps[step], client.stdout)
            XCTAssertEqual(refusal["refused"] as? Bool, true, step)
            XCTAssertEqual(
                refusal["auth_error"] as? Bool, true,
                "\(step): Home Assistant would ask for the password again: \(refusal)")
        }
        XCTAssertTrue(daemon.log.contains("onvif: refused user \"vic\" from 127.0.0.1"), daemon.log)
        XCTAssertTrue(
            daemon.log.contains("refused: Sender not authorized: a PasswordText token is accepted over HTTPS only"),
            daemon.log)
        XCTAssertFalse(daemon.log.contains("vics-password-1"), "no password in the log")
    }

    /// The URI as Home Assistant uses it: its ONVIF user and password put into the URL.
    private func checkTheStreamPlays(uri: String, picture: String = "320|height=240", audio: Bool = true) throws {
        let withCredentials = uri.replacingOccurrences(of: "rtsp://", with: "rtsp://appliance:\(Self.password)@")
        // The set-up's wrong passwords (at ONVIF, from this address) hold RTSP's next check for a moment.
        let probed = try whenLetIn {
            try ProcessOutcome.run(
                "/usr/bin/ffprobe",
                [
                    "-v", "error", "-rtsp_transport", "tcp", "-show_entries",
                    "stream=codec_name,width,height", "-of", "compact", withCredentials,
                ], timeout: 60)
        }
        XCTAssertEqual(probed.status, 0, probed.stderr)
        XCTAssertTrue(probed.stdout.contains("codec_name=h264|width=\(picture)"), probed.stdout)
        XCTAssertEqual(probed.stdout.contains("codec_name=aac"), audio, probed.stdout)
        let refused = try ProcessOutcome.run(
            "/usr/bin/ffprobe",
            [
                "-v", "error", "-rtsp_transport", "tcp",
                uri.replacingOccurrences(of: "rtsp://", with: "rtsp://appliance:wrong@"),
            ], timeout: 60)
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("401"), refused.stderr)
    }

    /// The states first, then motion (the ball), the recording's start and stop, and motion's end, each as Home
    /// Assistant's parsers read it; the subscription is gone after Home Assistant unsubscribes.
    private func followTheEvents(_ ha: JSONLinesProcess, _ daemon: DaemonProcess) throws {
        XCTAssertNotNil(ha.step("subscribed", within: 30), ha.stderr)
        let event = { (name: String, value: Bool, operation: String) -> [String: Any]? in
            ha.waitFor(30) {
                $0["step"] as? String == "event" && $0["name"] as? String == name && $0["value"] as? Bool == value
                    && $0["operation"] as? String == operation
            }
        }
        let motion = try XCTUnwrap(
            event("Cell Motion Detection", false, "Initialized"), "the binary sensor exists before any motion")
        XCTAssertEqual(motion["device_class"] as? String, "motion")
        XCTAssertNotNil(event("Recording Job State", false, "Initialized"))
        XCTAssertNotNil(event("Detected Sound", false, "Initialized"))
        XCTAssertEqual(try daemon.status().onvif?.subscriptions, 1)

        _ = try daemon.switchCamera(.named("ball"))
        XCTAssertNotNil(event("Cell Motion Detection", true, "Changed"), "motion: \(ha.lines.suffix(3))")
        _ = try daemon.recordStart()
        XCTAssertNotNil(event("Recording Job State", true, "Changed"))
        _ = try daemon.recordStop()
        XCTAssertNotNil(event("Recording Job State", false, "Changed"))
        _ = try daemon.switchCamera(.named("still"))
        XCTAssertNotNil(event("Cell Motion Detection", false, "Changed"))
        let uids = Set(
            ha.lines.filter { $0["name"] as? String == "Cell Motion Detection" }.compactMap { $0["uid"] as? String })
        XCTAssertEqual(uids.count, 1, "one entity, the same for every message: \(uids)")

        ha.closeInput()
        let after = try XCTUnwrap(ha.step("after_unsubscribe", within: 30), ha.stderr)
        XCTAssertEqual(after["fault"] as? String, "no such subscription (it expired, was ended, or never existed)")
        XCTAssertNotNil(ha.step("done", within: 30))
        XCTAssertTrue(ha.process.finish(within: 10))
        XCTAssertEqual(ha.process.terminationStatus, 0, ha.stderr)
        XCTAssertEqual(try daemon.status().onvif?.subscriptions, 0)
    }

    /// WS-Discovery across a network: the client in a network namespace of its own, joined to this host by a veth
    /// pair, finds the device by multicast as Home Assistant's config flow does, and then sets it up at the address
    /// it was given; a listener there hears the Hello at start and the Bye at a clean stop.
    func testTheWSDiscoveryClientFindsTheDeviceFromAnotherHost() throws {
        let net = try VethNetwork()
        defer { net.remove() }
        let listener = try JSONLinesProcess(
            "/usr/sbin/ip",
            [
                "netns", "exec", net.namespace, "python3",
                Self.repository + "/Tests/ONVIF/wsd_listen.py", net.clientAddress,
            ])
        XCTAssertNotNil(listener.waitFor(20) { $0["listening"] as? Bool == true }, listener.stderr)
        let (daemon, webPort, _) = try startDaemon(host: net.deviceAddress, discovery: "")
        defer { daemon.stop() }
        XCTAssertTrue(try daemon.waitFor(20) { try daemon.status().onvif?.discovery == .serving }, daemon.log)
        let status = try XCTUnwrap(try daemon.status().onvif)
        XCTAssertEqual(status.listen, "\(net.deviceAddress):3702")
        XCTAssertEqual(status.interfaces, [net.deviceInterface])
        let deviceService = "http://\(net.deviceAddress):\(webPort)/onvif/device_service"
        XCTAssertEqual(status.deviceService, deviceService)
        let hello = listener.waitFor(20) { $0["action"] as? String == "Hello" }
        XCTAssertEqual(hello?["xaddrs"] as? String, deviceService, "Hello at start: \(listener.lines)")
        XCTAssertEqual(hello?["endpoint"] as? String, status.endpoint)

        let search = try ProcessOutcome.run(
            "/usr/sbin/ip",
            [
                "netns", "exec", net.namespace, "python3",
                Self.repository + "/Tests/ONVIF/wsd_search.py",
            ], timeout: 60)
        let found = try XCTUnwrap(
            (try? JSONSerialization.jsonObject(with: Data(search.stdout.utf8))) as? [[String: Any]], search.stderr)
        let device = try XCTUnwrap(found.first { $0["epr"] as? String == status.endpoint }, "found: \(found)")
        XCTAssertEqual(device["xaddrs"] as? [String], [deviceService])
        let scopes = device["scopes"] as? [String] ?? []
        XCTAssertTrue(scopes.contains("onvif://www.onvif.org/Profile/Streaming"), "\(scopes)")
        XCTAssertTrue(
            scopes.contains("onvif://www.onvif.org/name/front door"), "the name, escaped on the wire: \(scopes)")
        XCTAssertTrue(scopes.contains { $0.hasPrefix("onvif://www.onvif.org/mac/") }, "\(scopes)")
        XCTAssertEqual(
            Set(device["types"] as? [String] ?? []),
            [
                "http://www.onvif.org/ver10/network/wsdl:NetworkVideoTransmitter",
                "http://www.onvif.org/ver10/device/wsdl:Device",
            ])

        // Home Assistant then sets the device up at the address discovery gave; the MAC it finds is the scope's.
        let setup = try ProcessOutcome.run(
            "/usr/sbin/ip",
            [
                "netns", "exec", net.namespace, "python3", Self.repository + "/" + Self.client,
                "--host", net.deviceAddress, "--port", "\(webPort)", "--password", Self.password,
            ],
            timeout: 120)
        XCTAssertTrue(setup.stdout.contains(#""step": "done""#), setup.stdout + setup.stderr)
        let mac =
            scopes.first { $0.hasPrefix("onvif://www.onvif.org/mac/") }.map { String($0.split(separator: "/").last!) }
            ?? "?"
        XCTAssertTrue(
            setup.stdout.contains(#""mac": "\#(mac)""#),
            "GetNetworkInterfaces names the scope's MAC \(mac): \(setup.stdout)")

        XCTAssertEqual(daemon.stop(), 0)
        let bye = listener.waitFor(20) { $0["action"] as? String == "Bye" }
        XCTAssertEqual(bye?["endpoint"] as? String, status.endpoint, "Bye at a clean stop: \(listener.lines)")
    }

    static func macAddresses() -> Set<String> {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/sys/class/net")) ?? []
        return Set(
            names.compactMap { try? String(contentsOfFile: "/sys/class/net/\($0)/address", encoding: .utf8) }
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) })
    }
}

/// A second host for the test: a network namespace joined to this one by a veth pair on a /24 of its own.
struct VethNetwork {
    let namespace: String
    let deviceInterface: String
    let deviceAddress: String
    let clientAddress: String

    init() throws {
        let tag = Int(getpid()) % 10_000
        let subnet = 100 + Int(getpid()) % 150
        namespace = "appl-onvif-\(tag)"
        deviceInterface = "aov\(tag)"
        deviceAddress = "10.213.\(subnet).1"
        clientAddress = "10.213.\(subnet).2"
        remove()
        let peer = "aoc\(tag)"
        for command in [
            ["netns", "add", namespace], ["link", "add", deviceInterface, "type", "veth", "peer", "name", peer],
            ["link", "set", peer, "netns", namespace], ["addr", "add", "\(deviceAddress)/24", "dev", deviceInterface],
            ["link", "set", deviceInterface, "up"],
            ["netns", "exec", namespace, "ip", "addr", "add", "\(clientAddress)/24", "dev", peer],
            ["netns", "exec", namespace, "ip", "link", "set", peer, "up"],
            ["netns", "exec", namespace, "ip", "link", "set", "lo", "up"],
        ] {
            let outcome = try ProcessOutcome.run("/usr/sbin/ip", command, timeout: 20)
            guard outcome.status == 0 else {
                remove()
                throw XCTSkip(
                    """
                    cannot make a network namespace here (ip \(command.joined(separator: " ")): \
                    \(outcome.stderr)); needs root
                    """
                )
            }
        }
    }

    func remove() {
        _ = try? ProcessOutcome.run("/usr/sbin/ip", ["link", "del", deviceInterface], timeout: 20)
        _ = try? ProcessOutcome.run("/usr/sbin/ip", ["netns", "del", namespace], timeout: 20)
    }
}
