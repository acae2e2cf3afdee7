import XCTest

@testable import Settings

/// `[[channel]]`: none means one channel with every camera (an old config unchanged); each table's own keys over
/// `[video]` and `[recording]`; the view a channel's graph runs on; and the mistakes named with their lines.
final class ChannelConfigTests: XCTestCase {
    private let twoCameras = ChannelFixtures.twoCameras

    func testNoChannelTablesIsOneChannelWithEveryCamera() throws {
        let config = try ConfigLoader.parse(
            twoCameras + "[video]\nwidth = 640\nheight = 360\n[recording]\npre_record_s = 3\n", file: "t")
        XCTAssertEqual(config.channelTables, [])
        let channel = try XCTUnwrap(config.channels.first)
        XCTAssertEqual(config.channels.count, 1)
        XCTAssertEqual(channel.name, "main")
        XCTAssertEqual(channel.cameras, ["road", "cabin"], "every camera, switchable as before")
        XCTAssertEqual(channel.video, config.video)
        XCTAssertEqual([channel.preRecordS, channel.postRecordS], [3, 5])
        XCTAssertEqual(channel.trigger, "manual")
        XCTAssertTrue(channel.audio)
        var expected = config
        expected.channelTables = [channel]
        XCTAssertEqual(config.forChannel(channel), expected, "the one channel's view is the config itself")
        let silent = try ConfigLoader.parse(twoCameras + "[audio]\nsource = \"none\"\n", file: "t")
        XCTAssertFalse(silent.channels[0].audio)
    }

    func testEachChannelSetsItsOwnKeysOverVideoAndRecording() throws {
        let config = try ConfigLoader.parse(
            twoCameras + """
                [video]
                width = 1280
                height = 720
                bitrate_kbps = 3000
                [motion]
                enabled = true
                [recording]
                post_record_s = 8
                [[channel]]
                name = "front"
                cameras = ["road"]
                trigger = "motion"
                [[channel]]
                name = "rear"
                cameras = ["cabin"]
                width = 640
                height = 360
                framerate = 15
                encoder = "x264"
                pre_record_s = 2
                """, file: "t")
        XCTAssertEqual(config.channels.map(\.name), ["front", "rear"])
        let (front, rear) = (config.channels[0], config.channels[1])
        XCTAssertEqual(front.cameras, ["road"])
        XCTAssertEqual(front.video, config.video, "the first channel sets no picture of its own")
        XCTAssertEqual(front.trigger, "motion")
        XCTAssertEqual([front.preRecordS, front.postRecordS], [0, 8])
        XCTAssertTrue(front.audio, "the first channel records the sound unless it says not to")
        XCTAssertFalse(rear.audio, "the others do not, unless they say so")
        XCTAssertEqual([rear.video.width, rear.video.height, rear.video.framerate], [640, 360, 15])
        XCTAssertEqual(rear.video.encoder, "x264")
        XCTAssertEqual(rear.video.bitrateKbps, 3000, "what it does not set comes from [video]")
        XCTAssertEqual(rear.trigger, "manual", "[recording]'s")
        XCTAssertEqual([rear.preRecordS, rear.postRecordS], [2, 8])

        let view = config.forChannel(rear)
        XCTAssertEqual(view.cameras.map(\.name), ["cabin"])
        XCTAssertEqual(view.video, rear.video)
        XCTAssertEqual(config.forChannel(front).recording.trigger, "motion")
        XCTAssertEqual(config.forChannel(front).recording.triggerKinds, ["motion"])
        XCTAssertEqual([view.recording.preRecordS, view.recording.postRecordS], [2, 8])
        XCTAssertEqual(view.audio.source, "none", "a channel without sound records none")
        XCTAssertEqual(view.channels, [rear], "the view is that one channel")
        XCTAssertEqual(config.forChannel(front).audio, config.audio)
    }

    /// Each channel watches its own picture: the `[motion] zones` it names (every one by default), `[objects] zones`
    /// kept to those, and its own masks over `[motion]`'s.
    func testAChannelWatchesTheZonesItNamesAndItsOwnMasks() throws {
        // The rear's own keys first (the fixture ends in its table), then [motion] and [objects].
        let config = try ConfigLoader.parse(
            ChannelFixtures.frontAndRear + """
                zones = ["drive"]
                masks = [[[0.8, 0.8], [1, 0.8], [1, 1]]]
                [motion]
                enabled = true
                masks = [[[0, 0], [0.2, 0], [0.2, 0.1]]]
                zones = [
                  { name = "porch", points = [[0, 0], [0.5, 0], [0.5, 0.5]] },
                  { name = "drive", points = [[0.5, 0.5], [1, 0.5], [1, 1]] },
                ]
                [objects]
                enabled = true
                zones = ["porch", "drive"]
                """, file: "t")
        let (front, rear) = (config.forChannel(config.channels[0]), config.forChannel(config.channels[1]))
        XCTAssertEqual(front.motion, config.motion, "a channel that names none watches every zone, [motion]'s masks")
        XCTAssertEqual(front.objects.zones, ["porch", "drive"])
        XCTAssertEqual(rear.motion.zones.map(\.name), ["drive"])
        XCTAssertEqual(rear.objects.zones, ["drive"], "objects look in its zones alone")
        XCTAssertEqual(rear.motion.masks.count, 1)
        XCTAssertNotEqual(rear.motion.masks, config.motion.masks, "its own masks")
        XCTAssertEqual(
            configError(twoCameras + "[[channel]]\ncameras = [\"road\", \"cabin\"]\nzones = [\"lawn\"]\n")?.description,
            "t.toml:9: channel[0].zones: no [motion] zone is named 'lawn' (zones: )")
        XCTAssertEqual(
            configError(twoCameras + "[[channel]]\ncameras = [\"road\", \"cabin\"]\nmasks = [[0, 1]]\n")?.key,
            "channel[0].masks")
    }

    func testMistakesAreNamedWithTheirLines() {
        let one = twoCameras + "[[channel]]\nname = \"all\"\ncameras = [\"road\", \"cabin\"]\n"
        XCTAssertNil(configError(one))
        XCTAssertEqual(
            configError(twoCameras + "[[channel]]\ncameras = [\"road\", \"garden\"]\n")?.description,
            "t.toml:8: channel[0].cameras: must name [[camera]] tables (road, cabin), found \"garden\"")
        XCTAssertEqual(
            configError(twoCameras + "[[channel]]\ncameras = [\"road\"]\n")?.description,
            "t.toml:7: channel: camera 'cabin' is in no [[channel]]: add it to one channel's cameras, or remove it")
        XCTAssertEqual(
            configError(
                twoCameras
                    + "[[channel]]\ncameras = [\"road\", \"cabin\"]\n[[channel]]\nname = \"b\"\ncameras = [\"cabin\"]\n"
            )?.description,
            "t.toml:11: channel[1].cameras: camera 'cabin' is already in channel 'main': a camera is in one channel")
        XCTAssertEqual(
            configError(one + "[[channel]]\nname = \"all\"\ncameras = []\n")?.key, "channel[1].cameras",
            "no camera")
        XCTAssertEqual(
            configError(twoCameras + "[[channel]]\ncameras = [\"road\", \"road\", \"cabin\"]\n")?.description,
            "t.toml:8: channel[0].cameras: names camera 'road' twice")
        XCTAssertEqual(
            configError(
                twoCameras + "[[channel]]\nname = \"a\"\ncameras = [\"road\"]\n"
                    + "[[channel]]\nname = \"a\"\ncameras = [\"cabin\"]\n"
            )?.description, "t.toml:11: channel[1].name: duplicate channel name 'a'")
        XCTAssertEqual(configError(one + "segment_s = 10\n")?.key, "channel[0].segment_s", "not a channel's key")
        XCTAssertEqual(configError(one + "width = 33\n")?.key, "channel[0].width", "[video]'s checks hold")
        XCTAssertEqual(
            configError(twoCameras + "[[channel]]\nname = \"a b\"\ncameras = [\"road\", \"cabin\"]\n")?.key,
            "channel[0].name")
        XCTAssertEqual(
            configError(one + "trigger = \"motion\"\n")?.description,
            "t.toml:10: channel[0].trigger: trigger = \"motion\" needs [motion] enabled = true")
        XCTAssertEqual(configError(one + "trigger = \"motion+\"\n")?.key, "channel[0].trigger")
        let two =
            twoCameras + "[[channel]]\nname = \"a\"\ncameras = [\"road\"]\n"
            + "[[channel]]\nname = \"b\"\ncameras = [\"cabin\"]\n"
        // Each channel follows its own trigger: any table may set it, with the same checks.
        XCTAssertNil(configError(two + "post_record_s = 3\ntrigger = \"manual\"\n"))
        XCTAssertEqual(
            configError(two + "trigger = \"sound\"\n")?.description,
            "t.toml:13: channel[1].trigger: trigger = \"sound\" needs [sound] enabled = true")
    }

    /// A sound card is opened once: the first channel that records the sound opens it and hands it to the others
    /// that record it, whose view's source is `shared`. A camera's own sound is each camera's.
    func testChannelsThatRecordTheMicrophoneShareTheFirstOnesCapture() throws {
        let two =
            twoCameras
            + "[[channel]]\nname = \"a\"\ncameras = [\"road\"]\n[[channel]]\nname = \"b\"\ncameras = [\"cabin\"]\n"
        let alone = try ConfigLoader.parse(two, file: "t").channelViews
        XCTAssertEqual(alone.map(\.audio.source), ["auto", "none"], "the second channel has no sound by default")
        XCTAssertEqual(alone[0].audio.sharedWith, [])
        for source in ["auto", "alsa", "test"] {
            let views = try ConfigLoader.parse(two + "audio = true\n[audio]\nsource = \"\(source)\"\n", file: "t")
                .channelViews
            XCTAssertEqual(views.map(\.audio.source), [source, "shared"], source)
            XCTAssertEqual(views[0].audio.sharedWith, ["b"], source)
            XCTAssertEqual(views[1].audio.sharedWith, [], source)
        }
        let cameras = try ConfigLoader.parse(two + "audio = true\n[audio]\nsource = \"camera\"\n", file: "t")
        XCTAssertEqual(cameras.channelViews.map(\.audio.source), ["camera", "camera"], "each camera's own sound")
        let second = try ConfigLoader.parse(
            twoCameras + "[[channel]]\nname = \"a\"\ncameras = [\"road\"]\naudio = false\n"
                + "[[channel]]\nname = \"b\"\ncameras = [\"cabin\"]\naudio = true\n", file: "t")
        XCTAssertEqual(second.channelViews.map(\.audio.source), ["none", "auto"], "the one that records it opens it")
    }
}
