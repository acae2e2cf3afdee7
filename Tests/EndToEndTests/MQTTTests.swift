import ApplianceApp
import ApplianceBase
import ApplianceProtocol
import ButtonsAndLights
import Foundation
import TestSupport
import XCTest

/// `[mqtt]` against a real broker (Debian's mosquitto, password file, TLS with a test CA) and mosquitto's own
/// clients: Home Assistant discovery with the keys each component needs, the Recording switch driving a real
/// recording, states following events, the last will on SIGKILL, reconnecting after the broker restarts,
/// rediscovery when Home Assistant comes back, a removed camera's entity cleared, refusals and unreachable brokers
/// as status lines with recording unaffected, and 1,000 malformed commands survived.
final class MQTTTests: XCTestCase {
    static let prefix = "test/cam"
    static let discovery = "ha"
    static let cameras = """
        [[camera]]
        name = "main"
        source = "test"
        pattern = "smpte"

        [[camera]]
        name = "second"
        source = "test"
        pattern = "ball"
        """
    /// A shutter whose device is not there: the daemon reports it missing and goes on; its gestures entity exists.
    static let shutter = """

        [[input]]
        kind = "evdev"
        device = "/dev/input/by-id/appliance-test-none"
        key = "KEY_SPACE"
        """

    private func mqttConfig(
        _ broker: MosquittoBroker, password: String? = nil, url: String? = nil, caFile: String? = nil,
        directory: String
    ) throws -> String {
        let file = directory + "/mqtt-password"
        _ = FileManager.default.createFile(
            atPath: file, contents: Data((password ?? broker.password).utf8), attributes: [.posixPermissions: 0o600])
        return """

            [mqtt]
            url = "\(url ?? broker.url)"
            username = "\(broker.user)"
            password_file = "\(file)"
            topic_prefix = "\(Self.prefix)"
            discovery_prefix = "\(Self.discovery)"
            device_name = "Test appliance"
            client_id = "appliance-test-\(UUID().uuidString.prefix(6))"
            \(caFile.map { "ca_file = \"\($0)\"" } ?? "")
            """
    }

    private func startDaemon(
        _ broker: MosquittoBroker, cameras: String = MQTTTests.cameras, password: String? = nil,
        url: String? = nil, caFile: String? = nil, root: String? = nil,
        shutter: (String) -> String = { _ in MQTTTests.shutter }
    ) throws -> DaemonProcess {
        let daemon = try DaemonProcess(cameras: cameras, root: root)
        try daemon.appendConfig(shutter(daemon.directory.path))
        try daemon.appendConfig(
            try mqttConfig(broker, password: password, url: url, caFile: caFile, directory: daemon.directory.path))
        try daemon.start()
        return daemon
    }

    private func topic(_ name: String) -> String { Self.prefix + "/" + name }

    private func waitConnected(_ daemon: DaemonProcess, connects: Int = 1, timeout: TimeInterval = 30) -> MQTTStatus? {
        var status: MQTTStatus?
        daemon.waitFor(timeout) {
            status = try? daemon.status().mqtt
            return status?.state == .connected && (status?.connects ?? 0) >= connects
        }
        return status
    }

    func testDiscoveryCarriesWhatHomeAssistantRequiresAndTheSwitchRecords() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let watcher = try MQTTWatcher(broker: broker, filter: "#")
        let daemon = try startDaemon(broker)
        defer { daemon.stop() }
        let status = try XCTUnwrap(waitConnected(daemon), "status.mqtt: \(daemon.log)")
        XCTAssertEqual(status.topicPrefix, Self.prefix)
        XCTAssertEqual(status.discoveryPrefix, Self.discovery)
        XCTAssertNil(status.error)
        XCTAssertFalse(daemon.log.contains(broker.password), "the password is never logged")
        let ctl = try daemon.ctl(["status"])
        XCTAssertTrue(ctl.stdout.contains("mqtt: \(broker.url) (connected"), ctl.stdout)

        XCTAssertTrue(watcher.waitFor(topic("availability"), "online"))
        let node = "appliance_\(status.deviceID)"
        let expected: [(String, String)] = [
            ("switch", "recording"), ("binary_sensor", "recording_active"), ("binary_sensor", "problem"),
            ("sensor", "elapsed"), ("sensor", "free_space"), ("sensor", "time_until_wrap"), ("sensor", "storage"),
            ("sensor", "clips"), ("sensor", "last_clip"), ("sensor", "backup_queue"), ("button", "snapshot"),
            ("button", "protect"), ("select", "camera"), ("image", "thumbnail"), ("event", "shutter"),
            ("binary_sensor", "camera_main"), ("binary_sensor", "camera_second"),
        ]
        let topics = expected.map { "\(Self.discovery)/\($0.0)/\(node)/\($0.1)/config" }
        XCTAssertTrue(
            watcher.waitFor(20) { seen in topics.allSatisfy { t in seen.contains { $0.topic == t } } },
            "discovery topics seen: \(Set(watcher.messages.map(\.topic)).sorted())")
        // Home Assistant's required keys per component (homeassistant/components/mqtt/<platform>.py schemas).
        let required: [String: [[String]]] = [
            "switch": [["command_topic"]], "binary_sensor": [["state_topic"]], "sensor": [["state_topic"]],
            "button": [["command_topic"]], "select": [["command_topic"], ["options"]],
            "image": [["image_topic", "url_topic"]],
            "event": [["state_topic"], ["event_types"]],
        ]
        var uniqueIDs = Set<String>()
        for ((component, object), topic) in zip(expected, topics) {
            let config = try XCTUnwrap(watcher.last(topic)?.json, "\(topic) is JSON")
            for alternatives in required[component] ?? [] {
                XCTAssertTrue(
                    alternatives.contains { config[$0] != nil },
                    "\(component)/\(object) lacks \(alternatives): \(config)")
            }
            let unique = try XCTUnwrap(config["unique_id"] as? String)
            XCTAssertTrue(uniqueIDs.insert(unique).inserted, "unique_id \(unique) used twice")
            XCTAssertEqual(config["availability_topic"] as? String, self.topic("availability"))
            let device = try XCTUnwrap(config["device"] as? [String: Any])
            XCTAssertEqual(device["identifiers"] as? [String], [node])
            XCTAssertEqual(device["name"] as? String, "Test appliance")
            XCTAssertEqual(device["sw_version"] as? String, ApplianceVersion.current)
            XCTAssertTrue((device["configuration_url"] as? String)?.hasPrefix("http://127.0.0.1:") == true, "\(device)")
            for key in ["state_topic", "command_topic", "image_topic", "json_attributes_topic"] {
                if let t = config[key] as? String {
                    XCTAssertTrue(t.hasPrefix(Self.prefix + "/"), "\(object).\(key) = \(t)")
                }
            }
        }
        XCTAssertEqual(watcher.last(topics[12])?.json?["options"] as? [String], ["main", "second"])

        // States, retained, from the start.
        XCTAssertTrue(watcher.waitFor(topic("recording"), "OFF"))
        XCTAssertTrue(watcher.waitFor(topic("camera"), "main"))
        XCTAssertTrue(watcher.waitFor(topic("problem"), "OFF"))
        XCTAssertTrue(watcher.waitFor(topic("storage"), "ok"))
        XCTAssertTrue(watcher.waitFor(topic("clips"), "0"))
        XCTAssertTrue(watcher.waitFor(topic("cameras/second"), "OFF"))
        // "None" until the first storage check has measured the disk; a number of MB after it.
        XCTAssertTrue(
            watcher.waitFor(20) { seen in seen.contains { $0.topic == topic("free_space") && (Int($0.text) ?? 0) > 0 }
            },
            "free_space: \(String(describing: watcher.last(topic("free_space"))?.text))")

        // The switch starts and stops a real recording; the states follow the events.
        try broker.publish(topic("recording/set"), "ON")
        XCTAssertTrue(watcher.waitFor(topic("recording"), "ON"), "recording state after ON: \(daemon.log)")
        XCTAssertEqual(try daemon.status().state, .recording)
        try broker.publish(topic("camera/set"), "second")
        XCTAssertTrue(watcher.waitFor(topic("camera"), "second"))
        XCTAssertEqual(try daemon.status().activeCamera, "second")
        daemon.waitFor(10) { ((try? daemon.status().recording?.elapsedMs) ?? 0) > 2000 }
        try broker.publish(topic("recording/set"), "OFF")
        XCTAssertTrue(watcher.waitFor(topic("recording"), "OFF"))
        XCTAssertTrue(watcher.waitFor(topic("clips"), "1"))
        let clip = try XCTUnwrap(try daemon.list().items.first)
        XCTAssertEqual(clip.state, .complete)
        XCTAssertTrue(
            watcher.waitFor(20) { _ in watcher.last(self.topic("last_clip"))?.json?["id"] as? String == clip.id })
        let last = try XCTUnwrap(watcher.last(topic("last_clip"))?.json)
        XCTAssertEqual(last["title"] as? String, clip.title)
        XCTAssertGreaterThan(last["duration_s"] as? Double ?? 0, 1.5)
        XCTAssertTrue((last["thumbnail_url"] as? String)?.hasSuffix("/media/\(clip.id)/thumbnail") == true, "\(last)")
        XCTAssertTrue(
            watcher.waitFor(20) { _ in
                watcher.last(self.topic("thumbnail"))?.payload.starts(with: [0xFF, 0xD8]) == true
            },
            "the thumbnail's JPEG bytes")
        XCTAssertTrue(try broker.retained(topic("recording")).contains { $0.text == "OFF" }, "states are retained")

        // Buttons: a snapshot, and protect (locks the clip just recorded).
        try broker.publish(topic("protect/set"), "PRESS")
        daemon.waitFor(10) { (try? daemon.info(clip.id).recording.locked) == true }
        XCTAssertTrue(try daemon.info(clip.id).recording.locked, "protect locked the last clip: \(daemon.log)")
        let snapshots = (try? FileManager.default.contentsOfDirectory(atPath: daemon.dataDir + "/snapshots")) ?? []
        try broker.publish(topic("snapshot/set"), "PRESS")
        XCTAssertTrue(
            daemon.waitFor(10) {
                ((try? FileManager.default.contentsOfDirectory(atPath: daemon.dataDir + "/snapshots")) ?? []).count
                    > snapshots.count
            }, "a snapshot file: \(daemon.log)")
        XCTAssertTrue(
            watcher.waitFor(15) { _ in watcher.last(self.topic("picture"))?.payload.starts(with: [0xFF, 0xD8]) == true
            },
            "the snapshot on the camera entity's topic")
    }

    func testLastWillBrokerRestartAndHomeAssistantComingBack() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let daemon = try startDaemon(broker)
        XCTAssertNotNil(waitConnected(daemon), daemon.log)
        let watcher = try MQTTWatcher(broker: broker, filter: "#")
        XCTAssertTrue(watcher.waitFor(topic("availability"), "online"))

        // Home Assistant restarts: discovery and states are sent again.
        let configsBefore = watcher.messages.filter {
            $0.topic.hasPrefix(Self.discovery + "/") && $0.topic.hasSuffix("/config")
        }.count
        try broker.publish(Self.discovery + "/status", "online")
        XCTAssertTrue(
            watcher.waitFor(15) { seen in
                seen.filter { $0.topic.hasPrefix(Self.discovery + "/") && $0.topic.hasSuffix("/config") }.count
                    >= configsBefore + 17
            }, "discovery sent again after \(Self.discovery)/status online: \(daemon.log)")

        // The broker dies and comes back without its retained messages: the daemon reconnects and publishes them again.
        let events = try EventListener(daemon, timeout: 60)
        broker.stop()
        let lost = try events.waitFor("mqtt_disconnected")
        XCTAssertEqual(lost["state"] as? String, "disconnected")
        XCTAssertNotNil(lost["error"] as? String)
        XCTAssertEqual(try daemon.status().mqtt?.state, .disconnected)
        try broker.start()
        let back = try events.waitFor("mqtt_connected")
        XCTAssertEqual(back["connects"] as? Int, 2)
        XCTAssertNotNil(waitConnected(daemon, connects: 2, timeout: 45), "reconnected: \(daemon.log)")
        // The states are sent again just after the connect: read the broker's retained set until they are there.
        var retained = try broker.retained(Self.prefix + "/#")
        try Poll.until(timeout: 20, every: 0.2) {
            retained = try broker.retained(Self.prefix + "/#")
            return retained.contains { $0.topic == topic("recording") }
        }
        XCTAssertTrue(
            retained.contains { $0.topic == topic("availability") && $0.text == "online" }, "\(retained.map(\.topic))")
        XCTAssertTrue(
            retained.contains { $0.topic == topic("recording") && $0.text == "OFF" }, "\(retained.map(\.topic))")

        // A power cut: the broker publishes the will, retained for whoever subscribes later.
        let late = try MQTTWatcher(broker: broker, filter: topic("availability"))
        XCTAssertTrue(late.waitFor(topic("availability"), "online"))
        if let process = daemon.process { kill(process.processIdentifier, SIGKILL) }
        XCTAssertTrue(
            late.waitFor(topic("availability"), "offline", timeout: 90), "the last will: \(broker.log.suffix(2000))")
        XCTAssertTrue(try broker.retained(topic("availability")).contains { $0.text == "offline" })
    }

    func testCleanStopSaysOfflineAndARemovedCameraLosesItsEntity() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mqtt-root-\(UUID().uuidString.prefix(6))"
        ).path
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let first = try startDaemon(broker, root: root)
        let status = try XCTUnwrap(waitConnected(first), first.log)
        let secondCamera = "\(Self.discovery)/binary_sensor/appliance_\(status.deviceID)/camera_second/config"
        let watcher = try MQTTWatcher(broker: broker, filter: "#")
        XCTAssertTrue(watcher.waitFor(20) { seen in seen.contains { $0.topic == secondCamera && !$0.payload.isEmpty } })
        XCTAssertEqual(first.stop(), 0)
        XCTAssertTrue(watcher.waitFor(topic("availability"), "offline", timeout: 10), "a clean stop says offline")

        // The same device without its second camera: that camera's entity is cleared (an empty retained config).
        let one = "[[camera]]\nname = \"main\"\nsource = \"test\"\npattern = \"smpte\""
        let second = try startDaemon(broker, cameras: one, root: root)
        defer { second.stop() }
        XCTAssertNotNil(waitConnected(second), second.log)
        XCTAssertTrue(
            watcher.waitFor(20) { _ in watcher.last(secondCamera)?.payload.isEmpty == true },
            "camera_second cleared: \(second.log)")
        XCTAssertFalse(try broker.retained(secondCamera).contains { !$0.payload.isEmpty })
        XCTAssertEqual(
            watcher.last("\(Self.discovery)/select/appliance_\(status.deviceID)/camera/config")?.json?["options"]
                as? [String], ["main"])
    }

    func testRefusedAndUnreachableBrokersAreStatusLinesAndRecordingGoesOn() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let refused = try startDaemon(broker, password: "wrong")
        defer { refused.stop() }
        var status: MQTTStatus?
        refused.waitFor(20) {
            status = try? refused.status().mqtt
            return status?.error != nil
        }
        XCTAssertEqual(status?.state, .disconnected)
        XCTAssertTrue(status?.error?.lowercased().contains("not authori") == true, "\(String(describing: status))")
        XCTAssertTrue(try refused.ctl(["status"]).stdout.contains("mqtt: \(broker.url) (disconnected"))
        try assertRecords(refused)

        // Nothing listens there.
        let unreachable = try startDaemon(broker, url: "mqtt://127.0.0.1:\(broker.port + 1)")
        defer { unreachable.stop() }
        unreachable.waitFor(20) {
            status = try? unreachable.status().mqtt
            return status?.error != nil
        }
        XCTAssertTrue(status?.error?.contains("refused") == true, "\(String(describing: status))")
        try assertRecords(unreachable)
        XCTAssertEqual(unreachable.stop(), 0, "stops at once with the broker away")
    }

    func testTLSWithATestCAAndRefusedWithoutIt() throws {
        let certificates = try TestCertificates()
        let broker = try MosquittoBroker(tls: certificates)
        try broker.start()
        let daemon = try startDaemon(broker, caFile: certificates.caCertificate)
        defer { daemon.stop() }
        XCTAssertNotNil(waitConnected(daemon), "mqtts with ca_file: \(daemon.log)")
        let watcher = try MQTTWatcher(broker: broker, filter: topic("#"))
        XCTAssertTrue(watcher.waitFor(topic("availability"), "online"))

        let untrusting = try startDaemon(broker)
        defer { untrusting.stop() }
        var status: MQTTStatus?
        untrusting.waitFor(20) {
            status = try? untrusting.status().mqtt
            return status?.error != nil
        }
        XCTAssertEqual(status?.state, .disconnected)
        XCTAssertTrue(status?.error?.contains("certificate verify failed") == true, "\(String(describing: status))")

        // A ca_file that is not there: one status line, and the daemon records without MQTT.
        let missing = try startDaemon(broker, caFile: "/nonexistent/ca.pem")
        defer { missing.stop() }
        missing.waitFor(20) {
            status = try? missing.status().mqtt
            return status?.error != nil
        }
        XCTAssertTrue(status?.error?.contains("ca_file /nonexistent/ca.pem") == true, "\(String(describing: status))")
        try assertRecords(missing)
    }

    func testAThousandMalformedCommandsLeaveTheDaemonUpAndRecording() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let daemon = try startDaemon(broker)
        defer { daemon.stop() }
        XCTAssertNotNil(waitConnected(daemon), daemon.log)
        let watcher = try MQTTWatcher(broker: broker, filter: topic("#"))
        XCTAssertTrue(watcher.waitFor(topic("recording"), "OFF"))
        _ = try daemon.recordStart(title: "under fire")
        var junk = Data()
        for i in 0..<250 {
            junk.append(contentsOf: Array("garbage \(i) \(String(repeating: "x", count: i))\n".utf8))
            // Not UTF-8 (mosquitto_pub -l ends its input at a NUL byte, so none here).
            junk.append(contentsOf: [0xFF, 0xFE, 0xC3, 0x28, UInt8(0x30 + i % 10), 0x0A])
        }
        for name in ["recording/set", "camera/set", "snapshot/set", "protect/set"] {
            try broker.publishLines(topic(name), junk)
        }
        XCTAssertTrue(
            daemon.waitFor(30) { daemon.log.components(separatedBy: "ignored:").count > 900 },
            "each malformed message is one log line")
        let stopped = try daemon.recordStop()
        XCTAssertGreaterThan(stopped.durationMs, 0)
        XCTAssertEqual(stopped.title, "under fire")
        try broker.publish(topic("recording/set"), "TOGGLE")
        XCTAssertTrue(watcher.waitFor(topic("recording"), "ON"), "commands still work")
        try broker.publish(topic("recording/set"), "OFF")
        XCTAssertTrue(watcher.waitFor(topic("recording"), "OFF"))
        XCTAssertEqual(try daemon.status().mqtt?.state, .connected)
    }

    private func assertRecords(_ daemon: DaemonProcess, file: StaticString = #filePath, line: UInt = #line) throws {
        _ = try daemon.recordStart()
        daemon.waitFor(10) { ((try? daemon.status().recording?.durationMs) ?? 0) > 1000 }
        let result = try daemon.recordStop()
        XCTAssertGreaterThan(result.durationMs, 500, file: file, line: line)
        XCTAssertEqual(result.droppedFrames, 0, file: file, line: line)
    }

    func testAShutterPressIsAHomeAssistantEvent() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let daemon = try startDaemon(broker) { directory in
            """
            \n[[input]]\nlabel = \"remote\"\nkind = \"evdev\"\ndevice = \"\(directory)/remote-event-kbd\"\nkey = \
            \"KEY_RECORD\"\n
            """
        }
        defer { daemon.stop() }
        XCTAssertNotNil(waitConnected(daemon), daemon.log)
        let watcher = try MQTTWatcher(broker: broker, filter: topic("#"))
        XCTAssertTrue(watcher.waitFor(topic("recording"), "OFF"))
        let fifo = daemon.directory.path + "/remote-event-kbd"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        var fd: Int32 = -1
        XCTAssertTrue(
            daemon.waitFor(15) {
                fd = open(fifo, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                return fd >= 0
            }, daemon.log)
        defer { close(fd) }
        // KEY_RECORD down and up 80 ms later, each with its SYN_REPORT: a press.
        let press =
            InputEventRecord.encoded(ms: 5_000_000, type: 1, code: 167, value: 1)
            + InputEventRecord.encoded(ms: 5_000_000, type: 0, code: 0, value: 0)
            + InputEventRecord.encoded(ms: 5_000_080, type: 1, code: 167, value: 0)
            + InputEventRecord.encoded(ms: 5_000_080, type: 0, code: 0, value: 0)
        XCTAssertEqual(press.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }, press.count)
        XCTAssertTrue(
            watcher.waitFor(15) { _ in watcher.last(self.topic("gesture"))?.json?["event_type"] as? String == "press" },
            daemon.log)
        let gesture = try XCTUnwrap(watcher.last(topic("gesture")))
        XCTAssertFalse(gesture.retained, "a gesture is an event, not a state")
        XCTAssertEqual(gesture.json?["label"] as? String, "remote")
        XCTAssertTrue(watcher.waitFor(topic("recording"), "ON"), "the press toggled recording on")
    }

    /// Motion and sound are Home Assistant binary sensors (device classes motion and sound) whose retained states
    /// follow the detectors: the test tone is sound at once, the ball camera is motion once switched to.
    func testMotionAndSoundAreBinarySensors() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let cameras =
            """
            [[camera]]\nname = \"still\"\nsource = \"test\"\npattern = \"black\"\n[[camera]]\nname = \
            \"ball\"\nsource = \"test\"\npattern = \"ball\"\n
            """
        let daemon = try startDaemon(broker, cameras: cameras) { _ in
            """
            \n[video]\nwidth = 320\nheight = 240\n[motion]\nenabled = true\n[sound]\nenabled = true\nthreshold_db \
            = -20\n
            """
        }
        defer { daemon.stop() }
        let status = try XCTUnwrap(waitConnected(daemon), daemon.log)
        let watcher = try MQTTWatcher(broker: broker, filter: "#")
        for (object, deviceClass) in [("motion", "motion"), ("sound", "sound")] {
            let config = "\(Self.discovery)/binary_sensor/appliance_\(status.deviceID)/\(object)/config"
            XCTAssertTrue(
                watcher.waitFor(15) { _ in watcher.last(config)?.json?["device_class"] as? String == deviceClass },
                "\(object): \(daemon.log)")
            XCTAssertEqual(watcher.last(config)?.json?["state_topic"] as? String, topic(object))
        }
        XCTAssertTrue(watcher.waitFor(topic("sound"), "ON"), "the tone is above -20 dBFS")
        XCTAssertTrue(watcher.waitFor(topic("motion"), "OFF"), "the still picture is no motion")
        _ = try daemon.switchCamera(.named("ball"))
        XCTAssertTrue(watcher.waitFor(topic("motion"), "ON"), daemon.log)
        XCTAssertTrue(try broker.retained(topic("motion")).contains { $0.text == "ON" }, "states are retained")
    }

    /// Two channels over a real broker: a recording switch each, whose command starts that channel alone and whose
    /// state follows each channel's recording; each channel's own motion sensor follows its own picture (the rear's
    /// ball moves, the front's bars do not); a channel's clip is its thumbnail.
    func testEachChannelIsARecordingSwitchWithItsOwnSensors() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let daemon = try startDaemon(broker, cameras: Self.cameras) { _ in
            FrontAndRear.channels(front: "main", rear: "second") + "\n[motion]\nenabled = true\n"
        }
        defer { daemon.stop() }
        let status = try XCTUnwrap(waitConnected(daemon), daemon.log)
        let watcher = try MQTTWatcher(broker: broker, filter: "#")
        for channel in ["front", "rear"] {
            let config = "\(Self.discovery)/switch/appliance_\(status.deviceID)/channel_\(channel)_recording/config"
            XCTAssertTrue(
                watcher.waitFor(15) { _ in
                    watcher.last(config)?.json?["command_topic"] as? String
                        == topic("channels/\(channel)/recording/set")
                }, "\(channel): \(daemon.log)")
            XCTAssertTrue(watcher.waitFor(topic("channels/\(channel)/recording"), "OFF"), channel)
            let motion = "\(Self.discovery)/binary_sensor/appliance_\(status.deviceID)/channel_\(channel)_motion/config"
            XCTAssertTrue(
                watcher.waitFor(15) { _ in
                    watcher.last(motion)?.json?["state_topic"] as? String == topic("channels/\(channel)/motion")
                }, "\(channel)'s motion sensor")
            let camera = "\(Self.discovery)/camera/appliance_\(status.deviceID)/channel_\(channel)_picture/config"
            XCTAssertTrue(
                watcher.waitFor(15) { _ in
                    watcher.last(camera)?.json?["topic"] as? String == topic("channels/\(channel)/picture")
                }, "\(channel)'s camera entity")
        }
        try broker.publish(topic("channels/rear/recording/set"), "ON")
        XCTAssertTrue(watcher.waitFor(topic("channels/rear/recording"), "ON"), daemon.log)
        XCTAssertEqual(try daemon.status().channels.map(\.state), [.idle, .recording], "the rear alone")
        XCTAssertTrue(watcher.waitFor(topic("channels/rear/motion"), "ON"), "the ball moves: \(daemon.log)")
        XCTAssertEqual(watcher.last(topic("channels/front/motion"))?.text, "OFF", "the bars stand still")
        try broker.publish(topic("channels/rear/recording/set"), "OFF")
        XCTAssertTrue(
            watcher.waitFor(15) { _ in
                watcher.last(self.topic("channels/rear/thumbnail"))?.payload.starts(with: [0xFF, 0xD8]) == true
            }, "the rear clip's thumbnail JPEG: \(daemon.log)")
        XCTAssertNil(watcher.last(topic("channels/front/thumbnail")), "the front recorded nothing")
        // The rear's snapshot button: the picture is its camera entity's, not the device's (the front's).
        try broker.publish(topic("channels/rear/snapshot/set"), "PRESS")
        XCTAssertTrue(
            watcher.waitFor(15) { _ in
                watcher.last(self.topic("channels/rear/picture"))?.payload.starts(with: [0xFF, 0xD8]) == true
            }, "the rear's snapshot on its camera: \(daemon.log)")
        XCTAssertNil(watcher.last(topic("picture")), "the device's camera is the front's")

        _ = try daemon.recordStart()
        for channel in ["front", "rear"] {
            XCTAssertTrue(watcher.waitFor(topic("channels/\(channel)/recording"), "ON"), "\(channel): \(daemon.log)")
        }
        _ = try daemon.recordStop()
        for channel in ["front", "rear"] {
            XCTAssertTrue(
                watcher.waitFor(15) { _ in watcher.last(topic("channels/\(channel)/recording"))?.text == "OFF" },
                channel)
        }
    }

    /// A speaker is a Chime button: its command rings the chime on the speaker (a file sink read back), and a
    /// chime's name plays that chime; anything else is refused, never a file.
    func testTheChimeButtonRingsTheSpeaker() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mqtt-speaker-\(UUID().uuidString.prefix(8)).raw"
        ).path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let daemon = try startDaemon(broker) { _ in
            """
            \n[speaker]\npipeline = \"audio/x-raw,format=S16LE,rate=48000,channels=1 ! filesink location=\(output) \
            append=true\"\n
            """
        }
        defer { daemon.stop() }
        let status = try XCTUnwrap(waitConnected(daemon), daemon.log)
        let watcher = try MQTTWatcher(broker: broker, filter: "#")
        let config = "\(Self.discovery)/button/appliance_\(status.deviceID)/chime/config"
        XCTAssertTrue(
            watcher.waitFor(15) { _ in watcher.last(config)?.json?["command_topic"] as? String == topic("chime/set") },
            daemon.log)
        let events = try TypedEvents(daemon, timeout: 30)
        try broker.publish(topic("chime/set"), "chime")
        try events.waitFor("the chime") { event -> Bool? in
            if case .speakerPlayed(let p) = event, p.sound == "chime", !p.interrupted { return true }
            return nil
        }
        try broker.publish(topic("chime/set"), "/etc/passwd")
        try broker.publish(topic("chime/set"), "protected")
        try events.waitFor("the protected chime") { event -> Bool? in
            if case .speakerPlayed(let p) = event, p.sound == "protected" { return true }
            return nil
        }
        XCTAssertTrue(daemon.log.contains("no chime named '/etc/passwd'"), daemon.log)
        XCTAssertEqual(try daemon.status().speaker?.played, 2)
        XCTAssertGreaterThan(
            try SpeakerOutput(path: output).soundingSeconds, 1.0, "both chimes came out of the speaker")
    }

    /// Every stored activity is a Home Assistant event (kind as `event_type`), and today's count a sensor whose
    /// attributes count each kind: a mark from outside (`ctl activity mark`) shows in both.
    func testAnActivityIsAHomeAssistantEventAndCounted() throws {
        let broker = try MosquittoBroker()
        try broker.start()
        let daemon = try startDaemon(broker)
        defer { daemon.stop() }
        let status = try XCTUnwrap(waitConnected(daemon), daemon.log)
        let watcher = try MQTTWatcher(broker: broker, filter: "#")
        let config = "\(Self.discovery)/event/appliance_\(status.deviceID)/activity/config"
        XCTAssertTrue(
            watcher.waitFor(15) { _ in watcher.last(config)?.json?["state_topic"] as? String == self.topic("activity")
            }, daemon.log)
        XCTAssertTrue(watcher.waitFor(topic("events_today"), "0"), "nothing yet today")
        let marked = try daemon.ctl(["activity", "mark", "door contact"])
        XCTAssertEqual(marked.status, 0, marked.stderr)
        XCTAssertTrue(
            watcher.waitFor(15) { _ in
                watcher.last(self.topic("activity"))?.json?["event_type"] as? String == "external"
            }, daemon.log)
        let event = try XCTUnwrap(watcher.last(topic("activity")))
        XCTAssertFalse(event.retained, "an activity is an event, not a state")
        XCTAssertEqual(event.json?["label"] as? String, "door contact")
        XCTAssertNotNil(event.json?["id"] as? Int)
        XCTAssertTrue(watcher.waitFor(topic("events_today"), "1"), daemon.log)
        XCTAssertTrue(
            watcher.waitFor(15) { _ in
                watcher.last(self.topic("events_today/attributes"))?.json?["external"] as? Int == 1
            })
    }

    /// A broker that takes the TCP connection and never answers (hung, or a firewall that swallows packets): the
    /// connect is given up after 10 s and tried again; status says so; commands and recording never wait for it.
    func testASilentBrokerTimesOutWithoutHoldingAnythingUp() throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertGreaterThanOrEqual(listener, 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        XCTAssertEqual(
            withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) }
            }, 0)
        XCTAssertEqual(listen(listener, 8), 0)  // the kernel completes handshakes; nobody ever reads
        XCTAssertEqual(
            withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
            }, 0)
        let port = Int(UInt16(bigEndian: address.sin_port))

        let broker = try MosquittoBroker()  // only for its user name; never started
        let daemon = try startDaemon(broker, url: "mqtt://127.0.0.1:\(port)")
        defer { daemon.stop() }
        try assertRecords(daemon)
        var status: MQTTStatus?
        daemon.waitFor(30) {
            status = try? daemon.status().mqtt
            return status?.error != nil
        }
        XCTAssertEqual(status?.state, .disconnected)
        XCTAssertTrue(
            status?.error?.contains("no answer from 127.0.0.1:\(port) within 10 s") == true,
            "\(String(describing: status))")
        try assertRecords(daemon)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// `appliance doctor` logs in to the broker with the daemon's settings: a pass names the broker and the user; a
    /// wrong password or no broker is a failure with its fix, and exit code 1.
    func testDoctorChecksTheBrokerLogin() throws {
        let certificates = try TestCertificates()
        let broker = try MosquittoBroker(tls: certificates)
        try broker.start()
        func doctor(password: String? = nil, url: String? = nil) throws -> (status: Int32, line: String, output: String)
        {
            let setup = try DaemonProcess()
            try setup.appendConfig(
                try mqttConfig(
                    broker, password: password, url: url, caFile: certificates.caCertificate,
                    directory: setup.directory.path))
            let result = try ProcessOutcome.run(
                DaemonProcess.binary, ["doctor", "--config", setup.configPath], timeout: 120)
            let line =
                (result.stdout + result.stderr).split(separator: "\n").first { $0.contains("  mqtt: ") }.map(
                    String.init) ?? ""
            return (result.status, line, result.stdout + result.stderr)
        }
        let good = try doctor()
        XCTAssertEqual(
            good.line,
            """
            PASS  mqtt: \(broker.url) takes the login as \(broker.user) over verified TLS (topics under \
            \(Self.prefix))
            """,
            good.output)
        XCTAssertFalse(good.output.contains(broker.password), "the password is never printed")
        XCTAssertFalse(broker.log.contains("appliance/"), "doctor publishes nothing")

        let wrong = try doctor(password: "nope")
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(
            wrong.line.hasPrefix("FAIL  mqtt: \(broker.url) as \(broker.user): Connection Refused: not authorised."),
            wrong.line)
        XCTAssertTrue(
            wrong.line.hasSuffix(
                "-- fix: check [mqtt] username and password_file (or APPLIANCE_MQTT_PASSWORD) and the broker's ACL"),
            wrong.line)

        let nowhere = try doctor(url: "mqtt://127.0.0.1:\(broker.port + 1)")
        XCTAssertEqual(nowhere.status, 1)
        XCTAssertTrue(
            nowhere.line.contains(
                "Connection refused -- fix: check [mqtt] url, the network and that the broker is running"), nowhere.line
        )
    }
}
