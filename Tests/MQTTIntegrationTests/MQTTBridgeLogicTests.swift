import ApplianceBase
import ApplianceProtocol
import Foundation
import XCTest

@testable import MQTTIntegration

/// The MQTT bridge's pure parts: Home Assistant discovery, command payloads, the states from facts, the device id.
final class MQTTBridgeLogicTests: XCTestCase {
    let topics = MQTTTopics(prefix: "appliance/1a2b3c4d")

    private func discovery(cameras: [String] = ["front", "rear cam"], shutters: Bool = true) -> HomeAssistantDiscovery {
        HomeAssistantDiscovery(
            prefix: "homeassistant", deviceID: "1a2b3c4d", deviceName: "Dashcam", version: "1.2.3",
            configurationURL: "http://192.168.1.5:8080", topics: topics, cameras: cameras, shutters: shutters)
    }

    func testEveryEntityHasWhatHomeAssistantRequiresUnderOneDevice() {
        var d = discovery()
        (d.motion, d.objects) = (true, ["person"])
        d.channels = [.init(name: "front", motion: true, objects: ["person"]), .init(name: "rear view")]
        // Required keys per platform (Home Assistant's MQTT platform schemas).
        let required: [String: [[String]]] = [
            "switch": [["command_topic"]], "binary_sensor": [["state_topic"]], "sensor": [["state_topic"]],
            "button": [["command_topic"]], "select": [["command_topic"], ["options"]],
            "image": [["image_topic", "url_topic"]], "camera": [["topic"]],
            "event": [["state_topic"], ["event_types"]],
        ]
        var unique = Set<String>()
        for entity in d.entities {
            for alternatives in required[entity.component] ?? [["?"]] {
                XCTAssertTrue(
                    alternatives.contains { entity.config[$0] != nil },
                    "\(entity.component)/\(entity.objectID): \(alternatives)")
            }
            guard case .string(let id)? = entity.config["unique_id"] else { return XCTFail("unique_id") }
            XCTAssertTrue(unique.insert(id).inserted, id)
            XCTAssertEqual(entity.config["availability_topic"], .string(topics.availability))
            guard case .object(let device)? = entity.config["device"] else { return XCTFail("device") }
            XCTAssertEqual(device["identifiers"], .array(["appliance_1a2b3c4d"]))
            XCTAssertEqual(device["configuration_url"], "http://192.168.1.5:8080")
            XCTAssertEqual(
                d.topic(entity), "homeassistant/\(entity.component)/appliance_1a2b3c4d/\(entity.objectID)/config")
            if entity.config["command_topic"] != nil { XCTAssertEqual(entity.config["qos"], 1) }
        }
        let objects = Set(d.entities.map(\.objectID))
        XCTAssertTrue(
            objects.isSuperset(of: [
                "recording", "problem", "free_space", "time_until_wrap", "clips", "backup_queue",
                "snapshot", "protect", "camera", "thumbnail", "shutter", "camera_front", "camera_rear_cam",
                "picture", "channel_front_picture", "channel_rear_view_picture",
            ]))
        let camera = d.entities.first { $0.objectID == "channel_rear_view_picture" }
        XCTAssertEqual(camera?.component, "camera", "each channel a camera entity showing its latest picture")
        XCTAssertEqual(camera?.config["topic"], .string(topics.channelPicture("rear view")))
        let select = d.entities.first { $0.component == "select" }
        XCTAssertEqual(select?.config["options"], .array(["front", "rear cam"]))
        XCTAssertFalse(
            discovery(shutters: false).entities.contains { $0.objectID == "shutter" }, "no shutter, no gesture entity")
        XCTAssertEqual(d.subscription, "homeassistant/+/appliance_1a2b3c4d/+/config")
        XCTAssertFalse(d.entities.contains { $0.objectID == "chime" }, "no speaker, no chime button")
        var speaking = d
        speaking.speaker = true
        let chime = speaking.entities.first { $0.objectID == "chime" }
        XCTAssertEqual(chime?.component, "button")
        XCTAssertEqual(chime?.config["command_topic"], .string(topics.chimeSet))
        XCTAssertEqual(chime?.config["payload_press"], "chime")
    }

    func testCommandPayloads() {
        func parse(_ topic: String, _ text: String) -> Command? {
            try? MQTTCommandParser.command(
                topic: topic, payload: Array(text.utf8), topics: topics, cameras: ["front", "next"]
            ).get()
        }
        XCTAssertEqual(parse(topics.recordingSet, "ON"), .recordStart(title: nil))
        XCTAssertEqual(parse(topics.recordingSet, " off\n"), .recordStop(title: nil))
        XCTAssertEqual(parse(topics.recordingSet, "toggle"), .recordToggle(title: nil))
        XCTAssertEqual(parse(topics.recordingSet, "start"), .recordStart(title: nil))
        XCTAssertEqual(parse(topics.snapshotSet, "PRESS"), .snapshot())
        XCTAssertEqual(parse(topics.snapshotSet, ""), .snapshot())
        XCTAssertEqual(
            parse(topics.protectSet, "PRESS"),
            .protect(before: Command.defaultProtectWindow, after: Command.defaultProtectWindow))
        XCTAssertEqual(parse(topics.cameraSet, "front"), .switchCamera(.named("front")))
        XCTAssertEqual(
            parse(topics.cameraSet, "next"), .switchCamera(.named("next")), "a camera named next is that camera")
        XCTAssertEqual(parse(topics.chimeSet, "PRESS"), .play(PlayRequest(chime: .chime)))
        XCTAssertEqual(parse(topics.chimeSet, "Recording-Started"), .play(PlayRequest(chime: .recordingStarted)))
        XCTAssertNil(parse(topics.chimeSet, "/etc/passwd"), "only chimes over MQTT, never a file")
        for (topic, text) in [
            (topics.recordingSet, "yes"), (topics.recordingSet, "{\"state\":\"ON\"}"), (topics.snapshotSet, "now"),
            (topics.cameraSet, "back"), (topics.prefix + "/other/set", "ON"),
            (topics.recordingSet, String(repeating: "O", count: 300)),
        ] {
            XCTAssertNil(parse(topic, text), "\(topic) \(text)")
        }
        let binary = MQTTCommandParser.command(
            topic: topics.recordingSet, payload: [0xFF, 0xFE, 0xC3, 0x28], topics: topics, cameras: [])
        XCTAssertEqual(binary, .failure(MQTTCommandRefusal("payload is not UTF-8 text")))
        guard
            case .failure(let refusal) = MQTTCommandParser.command(
                topic: topics.recordingSet, payload: Array("bad\u{1}\nx".utf8),
                topics: topics, cameras: [])
        else { return XCTFail() }
        XCTAssertFalse(refusal.description.contains("\u{1}"), "the log line shows no control characters: \(refusal)")
    }

    func testStatesFollowTheFacts() {
        var facts = MQTTFacts()
        facts.cameras = ["front", "rear"]
        facts.activeCamera = "front"
        facts.freeBytes = 12_345_678_901
        facts.clips = 7
        let now = Date()
        func text(_ topic: String) -> String? {
            facts.states(topics, now: now)[topic].map { String(decoding: $0, as: UTF8.self) }
        }
        XCTAssertEqual(text(topics.recording), "OFF")
        XCTAssertEqual(text(topics.elapsed), "0")
        XCTAssertEqual(text(topics.freeSpace), "12346")
        XCTAssertEqual(text(topics.timeUntilWrap), "None", "unknown to Home Assistant")
        XCTAssertEqual(text(topics.backupQueue), "None")
        XCTAssertEqual(text(topics.problem), "OFF")
        XCTAssertEqual(text(topics.storage), "ok")
        XCTAssertEqual(text(topics.clips), "7")
        XCTAssertEqual(text(topics.camera("rear")), "OFF")

        let started = RecordingStarted(id: "r1", title: "t", partialPath: "/p", createdAt: now.addingTimeInterval(-30))
        _ = facts.fold(.recordingStarted(started), now: now.addingTimeInterval(-30))
        XCTAssertEqual(text(topics.recording), "ON")
        XCTAssertEqual(text(topics.elapsed), "30")
        let refresh = facts.fold(.storageMissing(StorageStatus(state: .missing, recordingsDir: "/media/sd")), now: now)
        XCTAssertTrue(refresh.contains(.status))
        XCTAssertEqual(text(topics.problem), "ON")
        XCTAssertEqual(text(topics.storage), "missing")
        XCTAssertTrue(text(topics.problemAttributes)?.contains("storage_missing") == true)
        _ = facts.fold(.cameraFailed(CameraFailure(camera: "rear", reason: "gone")), now: now)
        XCTAssertEqual(text(topics.camera("rear")), "ON")
        _ = facts.fold(.cameraSwitched(CameraSwitched(from: "front", to: "rear", latencyMs: 3)), now: now)
        XCTAssertEqual(text(topics.camera), "rear")
    }

    func testMotionAndSoundAreBinarySensorsFollowingTheirEvents() {
        var d = discovery()
        XCTAssertFalse(
            d.entities.contains { ["motion", "sound"].contains($0.objectID) }, "none while detection is off")
        (d.motion, d.sound) = (true, true)
        let motion = d.entities.first { $0.objectID == "motion" }
        XCTAssertEqual(motion?.component, "binary_sensor")
        XCTAssertEqual(motion?.config["device_class"], "motion")
        XCTAssertEqual(motion?.config["state_topic"], .string(topics.motion))
        XCTAssertEqual(d.entities.first { $0.objectID == "sound" }?.config["device_class"], "sound")

        var facts = MQTTFacts()
        let now = Date()
        XCTAssertNil(facts.states(topics, now: now)[topics.motion], "no state while detection is off")
        let seen = MotionEvent(camera: "front", startedAt: now, zones: [], peakScore: 0.1)
        _ = facts.fold(.motionStarted(seen), now: now)
        XCTAssertEqual(facts.states(topics, now: now)[topics.motion], Array("ON".utf8))
        _ = facts.fold(.motionEnded(seen), now: now)
        XCTAssertEqual(facts.states(topics, now: now)[topics.motion], Array("OFF".utf8))
        var rear = seen
        rear.channel = "rear"
        _ = facts.fold(.motionStarted(rear), now: now)
        XCTAssertEqual(
            facts.states(topics, now: now)[topics.motion], Array("OFF".utf8), "the sensor is the first channel's")
        _ = facts.fold(.soundStarted(SoundEvent(startedAt: now, peakDb: -12)), now: now)
        XCTAssertEqual(facts.states(topics, now: now)[topics.sound], Array("ON".utf8))
    }

    /// Each tracked label is an occupancy binary sensor and a count; both follow the object events and the status.
    func testTrackedObjectsAreOccupancyAndACount() throws {
        var d = discovery()
        XCTAssertFalse(d.entities.contains { $0.objectID.hasSuffix("_occupancy") }, "none while objects are off")
        d.objects = ["person", "car"]
        let occupancy = try XCTUnwrap(d.entities.first { $0.objectID == "person_occupancy" })
        XCTAssertEqual(occupancy.component, "binary_sensor")
        XCTAssertEqual(occupancy.config["device_class"], "occupancy")
        XCTAssertEqual(occupancy.config["state_topic"], .string(topics.object("person")))
        let count = try XCTUnwrap(d.entities.first { $0.objectID == "car_count" })
        XCTAssertEqual(count.component, "sensor")
        XCTAssertEqual(count.config["state_topic"], .string(topics.objectCount("car")))

        var facts = MQTTFacts()
        let now = Date()
        XCTAssertNil(facts.states(topics, now: now)[topics.object("person")], "no state while objects are off")
        var status = StatusReport.fixture(state: .idle, cameras: ["front"])
        status.objects = ObjectStatus(
            detector: "HOG", track: ["person", "car"], fps: 5, width: 640, height: 360, runs: 9, skipped: 1,
            failures: 0, detections: ["person": 12], present: ["person": 2], events: 1, meanRunMs: 40)
        facts.apply(status, minFreeMb: 0, now: now)
        func text(_ topic: String) -> String? {
            facts.states(topics, now: now)[topic].map { String(decoding: $0, as: UTF8.self) }
        }
        XCTAssertEqual([text(topics.object("person")), text(topics.objectCount("person"))], ["ON", "2"])
        XCTAssertEqual([text(topics.object("car")), text(topics.objectCount("car"))], ["OFF", "0"])
        let car = ObjectEvent(
            label: "car", camera: "front", startedAt: now, score: 0.8,
            box: ObjectBox(x: 0, y: 0, width: 0.5, height: 0.2))
        XCTAssertTrue(facts.fold(.objectStarted(car), now: now).contains(.status), "the count is asked for")
        XCTAssertEqual([text(topics.object("car")), text(topics.objectCount("car"))], ["ON", "1"])
        _ = facts.fold(.objectEnded(car), now: now)
        XCTAssertEqual([text(topics.object("car")), text(topics.objectCount("car"))], ["OFF", "0"])
        XCTAssertEqual(
            topics.object("traffic light"), topics.prefix + "/objects/traffic_light", "a label as one topic level")
    }

    func testActivityIsAnEventEntityAndTodaysCountsASensor() throws {
        let d = discovery()
        let event = try XCTUnwrap(d.entities.first { $0.objectID == "activity" })
        XCTAssertEqual(event.component, "event")
        XCTAssertEqual(event.config["event_types"], .array(["motion", "sound", "manual", "external", "object"]))
        XCTAssertEqual(event.config["state_topic"], .string(topics.activity))
        let counts = try XCTUnwrap(d.entities.first { $0.objectID == "events_today" })
        XCTAssertEqual(counts.config["json_attributes_topic"], .string(topics.eventsTodayAttributes))

        var facts = MQTTFacts()
        let now = Date()
        XCTAssertNil(facts.states(topics, now: now)[topics.eventsToday], "unknown until counted")
        let start = now.addingTimeInterval(-3)
        let activity = Activity(
            id: 7, kind: .motion, camera: "front", startedAt: start, endedAt: now, zones: ["door"], peak: 0.05,
            thumbnail: "/data/activity/motion-1.jpg")
        XCTAssertTrue(
            facts.fold(.activity(activity), now: now).contains(.activityCounts), "an activity asks for the counts again"
        )
        facts.eventsToday = ActivityCounts(
            day: ActivityCounts.day(of: now), byKind: [.motion: 2, .sound: 0, .manual: 1, .external: 0])
        let states = facts.states(topics, now: now)
        XCTAssertEqual(states[topics.eventsToday], Array("3".utf8))
        XCTAssertEqual(
            states[topics.eventsTodayAttributes].map { String(decoding: $0, as: UTF8.self) },
            #"{"external":0,"manual":1,"motion":2,"sound":0}"#)

        guard case .object(let payload) = MQTTFacts.eventPayload(activity, webURL: "http://cam:8080") else {
            return XCTFail("not an object")
        }
        XCTAssertEqual(payload["event_type"], "motion")
        XCTAssertEqual(payload["id"], .int(7))
        XCTAssertEqual(payload["zones"], .array(["door"]))
        XCTAssertEqual(payload["duration_s"], .double(3))
        XCTAssertEqual(payload["picture_url"], "http://cam:8080/media/activity/7/picture")
        guard
            case .object(let mark) = MQTTFacts.eventPayload(
                Activity(id: 8, kind: .external, label: "door", startedAt: now, endedAt: now), webURL: nil)
        else { return XCTFail("not an object") }
        XCTAssertEqual(mark["label"], "door")
        XCTAssertNil(mark["picture_url"], "no picture, no URL")
    }

    func testDeviceIDIsStableHexAndHidesTheMachineID() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("machine-id-\(UUID().uuidString)").path
        try "0123456789abcdef0123456789abcdef\n".write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let a = DeviceIdentity.current(machineIDFile: file)
        let b = DeviceIdentity.current(machineIDFile: file)
        XCTAssertEqual(a, b)
        XCTAssertEqual(a.id.count, 8)
        XCTAssertTrue(a.id.allSatisfy(\.isHexDigit))
        XCTAssertFalse("0123456789abcdef0123456789abcdef".contains(a.id))
        XCTAssertEqual(DeviceIdentity.hash(""), "811c9dc5", "FNV-1a's offset basis")
    }
}
