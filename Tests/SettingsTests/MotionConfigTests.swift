import MotionAndSound
import XCTest

@testable import Settings

/// `[motion]`: its keys, zones and masks as polygons in relative coordinates, and a clear error for each mistake.
final class MotionConfigTests: XCTestCase {
    private func error(_ text: String) -> ConfigError? { configError(text) }

    func testTheDefaultsAndEveryKey() throws {
        let defaults = try ConfigLoader.load(path: nil).motion
        XCTAssertFalse(defaults.enabled)
        XCTAssertEqual(defaults.settings, MotionSettings(), "the documented defaults are the detector's own")
        XCTAssertEqual(defaults.height(videoWidth: 1280, videoHeight: 720), 90)
        XCTAssertEqual(defaults.height(videoWidth: 640, videoHeight: 480), 120)

        let m = try ConfigLoader.parse(
            """
            [motion]
            enabled = true
            fps = 10
            width = 320
            threshold = 20
            min_area = 0.01
            min_duration_s = 1
            zones = [{ name = "door", points = [[0.5, 0], [1, 0], [1, 1], [0.5, 1]] }, { name = "path", points = [[0, \
            0.5], [1, 0.5], [0, 1]] }]
            masks = [[[0, 0], [0.3, 0], [0.3, 0.2], [0, 0.2]]]
            """, file: "t"
        ).motion
        XCTAssertTrue(m.enabled)
        XCTAssertEqual([m.fps, m.width, m.threshold], [10, 320, 20])
        XCTAssertEqual(m.minArea, 0.01)
        XCTAssertEqual(m.minDurationS, 1)
        XCTAssertEqual(m.zones.map(\.name), ["door", "path"])
        XCTAssertEqual(m.zones[1].area.points, [.init(0, 0.5), .init(1, 0.5), .init(0, 1)])
        XCTAssertEqual(m.masks.count, 1)
        XCTAssertTrue(m.masks[0].contains(x: 0.1, y: 0.1))
        XCTAssertEqual(m.settings.zones, m.zones)
    }

    func testSoundSettings() throws {
        let defaults = try ConfigLoader.load(path: nil).sound
        XCTAssertFalse(defaults.enabled)
        XCTAssertEqual(defaults.settings, SoundDetector.Settings(), "the documented defaults are the detector's own")
        let s = try ConfigLoader.parse("[sound]\nenabled = true\nthreshold_db = -45\nmin_duration_s = 1.5\n", file: "t")
            .sound
        XCTAssertTrue(s.enabled)
        XCTAssertEqual(s.settings.thresholdDb, -45)
        XCTAssertEqual(s.settings.minDurationS, 1.5)
        XCTAssertEqual(error("[sound]\nthreshold_db = 3\n")?.key, "sound.threshold_db", "above full scale")
        XCTAssertEqual(error("[sound]\nlevel = 3\n")?.key, "sound.level", "unknown key")
    }

    func testRecordingTriggers() throws {
        let r = try ConfigLoader.parse(
            """
            [motion]\nenabled = true\n[sound]\nenabled = true\n[recording]\ntrigger = \
            \"motion+sound\"\npost_record_s = 3\nevent_gap_s = 20\n
            """,
            file: "t"
        ).recording
        XCTAssertEqual(r.trigger, "motion+sound")
        XCTAssertEqual([r.postRecordS, r.eventGapS], [3, 20])
        XCTAssertEqual(try ConfigLoader.load(path: nil).recording.trigger, "manual")
        XCTAssertEqual(
            error("[recording]\ntrigger = \"motion\"\n")?.description,
            "t.toml:2: recording.trigger: trigger = \"motion\" needs [motion] enabled = true")
        XCTAssertEqual(
            error("[motion]\nenabled = true\n[recording]\ntrigger = \"motion+sound\"\n")?.key, "recording.trigger",
            "sound is off")
        XCTAssertEqual(error("[recording]\ntrigger = \"noise\"\n")?.key, "recording.trigger")
    }

    func testMistakesAreNamed() {
        XCTAssertEqual(error("[motion]\nwidth = 162\n")?.key, "motion.width", "not a multiple of 4")
        XCTAssertEqual(error("[motion]\nfps = 0\n")?.key, "motion.fps")
        XCTAssertEqual(error("[motion]\nsensitivity = 3\n")?.key, "motion.sensitivity", "unknown key")
        XCTAssertEqual(
            error("[motion]\nmasks = [[[0, 0], [1, 1]]]\n")?.description,
            """
            t.toml:2: motion.masks: masks[0] must be an array of at least three [x, y] points, each between 0 and \
            1 (0,0 the top left)
            """
        )
        XCTAssertEqual(
            error("[motion]\nmasks = [[[0, 0], [2, 0], [1, 1]]]\n")?.key, "motion.masks", "outside the picture")
        XCTAssertEqual(error("[motion]\nmasks = \"top left\"\n")?.key, "motion.masks")
        XCTAssertEqual(
            error("[motion]\nzones = [{ points = [[0, 0], [1, 0], [1, 1]] }]\n")?.description,
            "t.toml:2: motion.zones: zones[0] must be { name = \"…\", points = [[x, y], …] }")
        XCTAssertEqual(
            error("[motion]\nzones = [{ name = \"a\", points = [[0, 0], [1, 0], [1, 1]], colour = 1 }]\n")?.key,
            "motion.zones")
        XCTAssertEqual(
            error(
                """
                [motion]\nzones = [{ name = \"a\", points = [[0, 0], [1, 0], [1, 1]] }, { name = \"a\", points = \
                [[0, 0], [1, 0], [1, 1]] }]\n
                """
            )?.description,
            "t.toml:2: motion.zones: duplicate zone name 'a'")
    }
}
