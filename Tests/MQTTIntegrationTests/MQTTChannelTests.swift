import ApplianceBase
import ApplianceProtocol
import Foundation
import XCTest

@testable import MQTTIntegration

/// Several channels on MQTT: each channel's recording switch, snapshot button, thumbnail, and motion and object
/// sensors, their states following status and each channel's events, and their command topics.
final class MQTTChannelTests: XCTestCase {
    let topics = MQTTTopics(prefix: "appliance/1a2b3c4d")
    let now = Date()

    /// Front runs motion and tracks people; "rear view" runs neither.
    private func status(channels: [(String, [String])] = [("front", ["road"]), ("rear view", ["cabin"])])
        -> StatusReport
    {
        var status = StatusReport.fixture(state: .recording, cameras: ["road", "cabin"])
        status.channels = channels.map { name, cameras in
            var channel = ChannelStatus(
                name: name, state: .recording, recordingId: "r", cameras: cameras, activeCamera: cameras[0],
                encoder: "x264", width: 640, height: 360, framerate: 30)
            if name == "front" {
                channel.motion = MotionStatus(
                    active: false, score: 0, fps: 5, width: 160, height: 90, framesAnalysed: 1, events: 0)
                channel.objects = ObjectStatus(
                    detector: "HOG", track: ["person"], fps: 2, width: 640, height: 360, runs: 1, skipped: 0,
                    failures: 0, detections: [:], present: [:], events: 0, meanRunMs: 40)
            }
            return channel
        }
        return status
    }

    private func text(_ facts: MQTTFacts, _ topic: String) -> String? {
        facts.states(topics, now: now)[topic].map { String(decoding: $0, as: UTF8.self) }
    }

    /// A recording switch each, following status and each channel's start and stop (another channel's clip ending
    /// leaves this one ON); with one channel, none.
    func testEachChannelIsARecordingSwitchOfItsOwn() throws {
        var facts = MQTTFacts()
        var status = status()
        facts.apply(status, minFreeMb: 0, now: now)
        XCTAssertEqual(
            [text(facts, topics.channelRecording("front")), text(facts, topics.channelRecording("rear view"))],
            ["ON", "ON"])
        XCTAssertEqual(topics.channelRecording("rear view"), topics.prefix + "/channels/rear_view/recording")
        var stopped = RecordingResult(
            id: "c", title: "", path: "/tmp/c.mp4", thumbnail: nil, durationMs: 1000, videoFrames: 30,
            droppedFrames: 0, audioDurationMs: nil, avOffsetMs: nil, sizeBytes: 1, width: 640, height: 360,
            framerate: 30, createdAt: now, endedAt: now, stopReason: .request, startLatencyMs: nil, stopLatencyMs: nil)
        stopped.channel = "rear view"
        _ = facts.fold(.recordingStopped(stopped), now: now)
        XCTAssertEqual(
            [text(facts, topics.channelRecording("front")), text(facts, topics.channelRecording("rear view"))],
            ["ON", "OFF"])
        var started = RecordingStarted(id: "d", title: "", partialPath: "/tmp/d.mp4", createdAt: now)
        started.channel = "rear view"
        _ = facts.fold(.recordingStarted(started), now: now)
        XCTAssertEqual(text(facts, topics.channelRecording("rear view")), "ON")

        var d = discovery()
        d.channels = facts.channels.map(\.entities)
        let rear = try XCTUnwrap(d.entities.first { $0.objectID == "channel_rear_view_recording" })
        XCTAssertEqual(rear.component, "switch")
        XCTAssertEqual(rear.config["state_topic"], .string(topics.channelRecording("rear view")))
        XCTAssertEqual(rear.config["command_topic"], .string(topics.channelRecordingSet("rear view")))
        let thumbnail = try XCTUnwrap(d.entities.first { $0.objectID == "channel_rear_view_thumbnail" })
        XCTAssertEqual(thumbnail.component, "image")
        XCTAssertEqual(thumbnail.config["image_topic"], .string(topics.prefix + "/channels/rear_view/thumbnail"))
        XCTAssertEqual(
            d.entities.first { $0.objectID == "channel_front_snapshot" }?.config["command_topic"],
            .string(topics.prefix + "/channels/front/snapshot/set"))

        status.channels = Array(status.channels.prefix(1))
        facts.apply(status, minFreeMb: 0, now: now)
        XCTAssertNil(text(facts, topics.channelRecording("front")), "one channel: the device's switch says it all")
        XCTAssertTrue(facts.channels.isEmpty)
    }

    /// Each channel's motion and objects are its own sensors while its detection is on: the first channel's events
    /// (which carry no channel) move its sensors and the device's, another's only its own.
    func testEachChannelHasItsOwnMotionAndObjectSensors() throws {
        var facts = MQTTFacts()
        var status = status()
        status.motion = MotionStatus(
            active: false, score: 0, fps: 5, width: 160, height: 90, framesAnalysed: 1, events: 0)
        facts.apply(status, minFreeMb: 0, now: now)
        XCTAssertEqual(text(facts, topics.channelMotion("front")), "OFF")
        XCTAssertNil(text(facts, topics.channelMotion("rear view")), "no motion sensor where detection is off")
        XCTAssertEqual(
            [
                text(facts, topics.channelObject("front", "person")),
                text(facts, topics.channelObjectCount("front", "person")),
            ],
            ["OFF", "0"])

        var rearMotion = MotionEvent(camera: "cabin", startedAt: now, zones: [], peakScore: 0.2)
        rearMotion.channel = "rear view"
        _ = facts.fold(.motionStarted(rearMotion), now: now)
        XCTAssertNil(text(facts, topics.channelMotion("rear view")), "its detection is off: still no sensor")
        let frontMotion = MotionEvent(camera: "road", startedAt: now, zones: [], peakScore: 0.2)
        _ = facts.fold(.motionStarted(frontMotion), now: now)
        XCTAssertEqual([text(facts, topics.channelMotion("front")), text(facts, topics.motion)], ["ON", "ON"])
        _ = facts.fold(.motionEnded(frontMotion), now: now)
        XCTAssertEqual(text(facts, topics.channelMotion("front")), "OFF")

        let person = ObjectEvent(
            label: "person", camera: "road", startedAt: now, score: 0.9,
            box: ObjectBox(x: 0, y: 0, width: 0.2, height: 0.5))
        XCTAssertTrue(facts.fold(.objectStarted(person), now: now).contains(.status), "how many is asked")
        XCTAssertEqual(
            [
                text(facts, topics.channelObject("front", "person")),
                text(facts, topics.channelObjectCount("front", "person")),
            ],
            ["ON", "1"])
        var rearPerson = person
        rearPerson.channel = "rear view"
        _ = facts.fold(.objectStarted(rearPerson), now: now)
        XCTAssertNil(text(facts, topics.channelObject("rear view", "person")))
        _ = facts.fold(.objectEnded(person), now: now)
        XCTAssertEqual(text(facts, topics.channelObject("front", "person")), "OFF")

        var d = discovery()
        d.channels = facts.channels.map(\.entities)
        let ids = Set(d.entities.map(\.objectID))
        XCTAssertTrue(
            ids.isSuperset(of: ["channel_front_motion", "channel_front_person_occupancy", "channel_front_person_count"]
            ),
            "\(ids)")
        XCTAssertFalse(ids.contains("channel_rear_view_motion"))
        let motion = try XCTUnwrap(d.entities.first { $0.objectID == "channel_front_motion" })
        XCTAssertEqual(motion.config["device_class"], "motion")
        XCTAssertEqual(motion.config["name"], "Motion front")
    }

    /// A channel's switch and snapshot button are commands for that channel alone; a topic naming no channel is
    /// refused.
    func testAChannelsCommandTopicsActOnThatChannel() {
        let channels = ["front", "rear view"]
        func parse(_ topic: String, _ text: String) -> Command? {
            try? MQTTCommandParser.command(
                topic: topic, payload: Array(text.utf8), topics: topics, cameras: ["road", "cabin"], channels: channels
            ).get()
        }
        XCTAssertEqual(
            parse(topics.channelRecordingSet("rear view"), "ON"), .recordStart(title: nil, channel: "rear view"))
        XCTAssertEqual(parse(topics.channelRecordingSet("front"), "off"), .recordStop(title: nil, channel: "front"))
        XCTAssertEqual(
            parse(topics.channelRecordingSet("front"), "TOGGLE"), .recordToggle(title: nil, channel: "front"))
        XCTAssertEqual(parse(topics.channelSnapshotSet("rear view"), "PRESS"), .snapshot(channel: "rear view"))
        XCTAssertEqual(parse(topics.recordingSet, "ON"), .recordStart(title: nil), "the device's switch: every channel")
        for (topic, text) in [
            (topics.prefix + "/channels/side/recording/set", "ON"), (topics.channelRecordingSet("front"), "yes"),
            (topics.channelSnapshotSet("front"), "now"), (topics.prefix + "/channels/front/motion/set", "ON"),
            (topics.prefix + "/channels/front", "ON"),
        ] {
            XCTAssertNil(parse(topic, text), "\(topic) \(text)")
        }
        XCTAssertTrue(topics.commands.contains(topics.prefix + "/channels/+/recording/set"), "\(topics.commands)")
        XCTAssertTrue(topics.commands.contains(topics.prefix + "/channels/+/snapshot/set"))
    }

    private func discovery() -> HomeAssistantDiscovery {
        HomeAssistantDiscovery(
            prefix: "homeassistant", deviceID: "1a2b3c4d", deviceName: "Dashcam", version: "1.2.3",
            configurationURL: nil, topics: topics, cameras: ["road", "cabin"], shutters: false)
    }
}
