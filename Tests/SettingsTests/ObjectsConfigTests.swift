import XCTest

@testable import Settings

/// `[objects]`: its defaults (off, HOG, tracking people), every key, and the mistakes named; `trigger` by a label.
final class ObjectsConfigTests: XCTestCase {
    private func error(_ text: String) -> ConfigError? { configError(text) }

    func testTheDefaultsAndEveryKey() throws {
        let defaults = try ConfigLoader.load(path: nil).objects
        XCTAssertEqual(defaults, ApplianceConfig.Objects())
        XCTAssertFalse(defaults.enabled)
        XCTAssertEqual(defaults.model, "", "no model: the built-in people detector")
        XCTAssertEqual(defaults.track, ["person"])
        XCTAssertTrue(defaults.size(videoWidth: 1280, videoHeight: 720) == (1280, 720), "the picture's own size")

        let o = try ConfigLoader.parse(
            """
            [motion]
            enabled = true
            [objects]
            enabled = true
            fps = 3
            width = 640
            model = "/m/yolo.onnx"
            model_config = "/m/x.cfg"
            labels = "/m/coco.names"
            output = "ssd"
            input_width = 300
            input_height = 300
            min_score = 0.4
            threshold = 0.6
            nms = 0.5
            track = ["person", "car"]
            release_s = 8
            [recording]
            trigger = "car+sound"
            [sound]
            enabled = true
            """, file: "t"
        ).objects
        XCTAssertEqual([o.fps, o.width, o.inputWidth, o.inputHeight], [3, 640, 300, 300])
        XCTAssertEqual(
            [o.model, o.modelConfig, o.labels, o.output], ["/m/yolo.onnx", "/m/x.cfg", "/m/coco.names", "ssd"])
        XCTAssertEqual([o.minScore, o.threshold, o.nms, o.releaseS], [0.4, 0.6, 0.5, 8])
        XCTAssertEqual(o.track, ["person", "car"])
        XCTAssertTrue(o.size(videoWidth: 1280, videoHeight: 720) == (640, 360))
        XCTAssertTrue(o.size(videoWidth: 320, videoHeight: 240) == (320, 240), "never upscaled")
    }

    func testTriggersByLabel() throws {
        let on = "[motion]\nenabled = true\n[objects]\nenabled = true\n"
        XCTAssertEqual(
            try ConfigLoader.parse(on + "[recording]\ntrigger = \"person\"\n", file: "t").recording.triggerKinds,
            ["person"])
        XCTAssertEqual(
            try ConfigLoader.parse(on + "[recording]\ntrigger = \"object+motion\"\n", file: "t").recording.triggerKinds,
            ["object", "motion"])
        XCTAssertEqual(
            error("[recording]\ntrigger = \"person\"\n")?.description,
            """
            t.toml:2: recording.trigger: trigger = \"person\" needs [objects] enabled = true (and [motion]: \
            objects are looked for where motion is)
            """
        )
        XCTAssertEqual(
            error(on + "[recording]\ntrigger = \"car\"\n")?.description,
            "t.toml:6: recording.trigger: trigger = \"car\" names 'car', which is not among [objects] track (person)")
        XCTAssertEqual(error("[recording]\ntrigger = \"motion++sound\"\n")?.key, "recording.trigger")
        XCTAssertEqual(error("[recording]\ntrigger = \"\"\n")?.key, "recording.trigger")
    }

    func testMistakesAreNamed() {
        XCTAssertEqual(
            error("[objects]\nenabled = true\n")?.description,
            "t.toml:2: objects.enabled: [objects] needs [motion] enabled = true: objects are looked for where motion is"
        )
        XCTAssertEqual(error("[objects]\nfps = 0\n")?.key, "objects.fps")
        XCTAssertEqual(error("[objects]\nwidth = 33\n")?.key, "objects.width")
        XCTAssertEqual(error("[objects]\noutput = \"detr\"\n")?.key, "objects.output")
        XCTAssertEqual(error("[objects]\ntrack = [\"person\", 3]\n")?.key, "objects.track")
        XCTAssertEqual(error("[objects]\ntrack = [\"a+b\"]\n")?.key, "objects.track")
        XCTAssertEqual(error("[objects]\nmodel_config = \"/x.cfg\"\n")?.key, "objects.model_config")
        XCTAssertEqual(error("[objects]\nnms = 2\n")?.key, "objects.nms")
        XCTAssertEqual(error("[objects]\nmodle = \"x\"\n")?.key, "objects.modle")
        XCTAssertEqual(
            error(
                """
                [motion]\nzones = [{ name = \"door\", points = [[0, 0], [1, 0], [1, 1]] }]\n[objects]\nzones = \
                [\"gate\"]\n
                """
            )?.description,
            "t.toml:4: objects.zones: no [motion] zone is named 'gate' (zones: door)")
        XCTAssertEqual(
            try ConfigLoader.parse(
                """
                [motion]\nzones = [{ name = \"door\", points = [[0, 0], [1, 0], [1, 1]] }]\n[objects]\nzones = \
                [\"door\"]\n
                """,
                file: "t"
            ).objects.zones, ["door"])
    }
}
