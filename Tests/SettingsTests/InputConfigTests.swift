import ButtonsAndLights
import Foundation
import XCTest

@testable import Settings

/// `[[input]]` tables: what parses, and that every mistake fails naming its key path.
final class InputConfigTests: XCTestCase {
    private func error(_ text: String) -> ConfigError? { configError(text) }

    private let evdev = "[[input]]\nkind = \"evdev\"\ndevice = \"/dev/input/event0\"\n"

    func testAnEvdevInputParses() throws {
        let config = try ConfigLoader.parse(
            """
            [[input]]
            kind = "evdev"
            name = "Logitech USB Receiver"
            key = "KEY_RECORD"
            grab = true
            action = "toggle"
            long_press_action = "snapshot"
            long_press_ms = 1500
            double_press_action = "next_camera"
            [[input]]
            label = "pedal"
            kind = "evdev"
            device = "/dev/input/by-id/usb-pedal-event-kbd"
            key = "BTN_0"
            action = "hold"
            """, file: "t.toml")
        XCTAssertEqual(config.inputs.count, 2)
        let first = config.inputs[0]
        XCTAssertEqual(first.label, "input0")
        XCTAssertEqual(first.deviceName, "Logitech USB Receiver")
        XCTAssertEqual(first.keyCode, 167)
        XCTAssertTrue(first.grab)
        XCTAssertEqual(first.gestureRules, .init(hold: false, longPress: 1_500_000_000, doublePress: 400_000_000))
        XCTAssertEqual(config.inputs[1].keyCode, 0x100)
        XCTAssertEqual(config.inputs[1].gestureRules, .init(hold: true))
        XCTAssertEqual(InputService.device(for: config.inputs[1]).description, "/dev/input/by-id/usb-pedal-event-kbd")
        XCTAssertEqual(InputService.device(for: first).description, "name \"Logitech USB Receiver\"")
    }

    func testUnknownKeyName() {
        let e = error(evdev + "key = \"KEY_SPACEBAR\"\n")
        XCTAssertEqual(e?.key, "input[0].key")
        XCTAssertTrue(e?.description.contains("KEY_SPACEBAR") ?? false, e?.description ?? "")
    }

    func testActionTypo() {
        XCTAssertEqual(error(evdev + "action = \"togle\"\n")?.key, "input[0].action")
        XCTAssertEqual(error(evdev + "long_press_action = \"snap\"\n")?.key, "input[0].long_press_action")
        XCTAssertEqual(error(evdev + "double_press_action = \"nextcamera\"\n")?.key, "input[0].double_press_action")
    }

    func testAGpioKeyOnAnEvdevInput() {
        XCTAssertEqual(error(evdev + "line = 17\n")?.key, "input[0].line")
        XCTAssertEqual(error(evdev + "debounce_ms = 10\n")?.key, "input[0].debounce_ms")
        XCTAssertEqual(
            error("[[input]]\nkind = \"gpio\"\nchip = \"gpiochip0\"\nline = 17\nkey = \"KEY_A\"\n")?.key, "input[0].key"
        )
    }

    func testMalformedInputTables() {
        XCTAssertEqual(error("input = 3\n")?.key, "input")
        XCTAssertEqual(error("input = [1, 2]\n")?.key, "input[0]")
        XCTAssertEqual(error("[[input]]\ndevice = \"/dev/input/event0\"\n")?.key, "input[0].kind", "kind is required")
        XCTAssertEqual(error("[[input]]\nkind = \"usb\"\n")?.key, "input[0].kind")
        XCTAssertEqual(error("[[input]]\nkind = \"evdev\"\n")?.key, "input[0].device", "needs a device or a name")
        XCTAssertEqual(error(evdev + "name = \"x\"\n")?.key, "input[0].name", "not both")
        XCTAssertEqual(error(evdev + "grab = \"yes\"\n")?.key, "input[0].grab")
        XCTAssertEqual(error(evdev + "colour = 1\n")?.key, "input[0].colour")
        XCTAssertEqual(
            error(evdev + evdev + "key = \"KEY_NOPE\"\n")?.key, "input[1].key", "the index counts the tables")
    }

    func testHoldCannotHaveLongOrDoublePress() {
        XCTAssertEqual(
            error(evdev + "action = \"hold\"\nlong_press_action = \"snapshot\"\n")?.key, "input[0].long_press_action")
        XCTAssertEqual(
            error(evdev + "action = \"hold\"\ndouble_press_action = \"stop\"\n")?.key, "input[0].double_press_action")
        XCTAssertEqual(error(evdev + "long_press_action = \"hold\"\n")?.key, "input[0].long_press_action")
    }

    /// `channel` names the `[[channel]]` a button acts on, or a light follows: one that is there (the default
    /// config's one is `main`).
    func testAnInputOrALightNamesItsChannel() throws {
        let channels = ChannelFixtures.frontAndRear
        let config = try ConfigLoader.parse(channels + evdev + "channel = \"rear\"\n", file: "t.toml")
        XCTAssertEqual(config.inputs.first?.channel, "rear")
        XCTAssertNil(try ConfigLoader.parse(evdev, file: "t.toml").inputs.first?.channel, "default: every channel")
        let main = try ConfigLoader.parse(evdev + "channel = \"main\"\n", file: "t.toml")
        XCTAssertEqual(main.inputs.first?.channel, "main")
        let e = error(channels + evdev + "channel = \"boot\"\n")
        XCTAssertEqual(e?.key, "input[0].channel")
        XCTAssertTrue(e?.description.contains("channels: front, rear") ?? false, e?.description ?? "")
        let led = "[[output]]\nkind = \"led\"\nled = \"rec\"\n"
        XCTAssertEqual(
            try ConfigLoader.parse(channels + led + "channel = \"front\"\n", file: "t.toml").outputs.first?.channel,
            "front")
        XCTAssertNil(try ConfigLoader.parse(led, file: "t.toml").outputs.first?.channel, "default: any channel")
        XCTAssertEqual(error(channels + led + "channel = \"boot\"\n")?.key, "output[0].channel")
    }

    func testTimingsAreBounded() {
        XCTAssertEqual(error(evdev + "long_press_ms = 10\n")?.key, "input[0].long_press_ms")
        XCTAssertEqual(error(evdev + "double_press_ms = 5000\n")?.key, "input[0].double_press_ms")
    }

    func testErrorsCarryTheLine() {
        let e = error("data_dir = \"/tmp/x\"\n" + evdev + "key = \"KEY_NOPE\"\n")
        XCTAssertEqual(e?.line, 5)
        XCTAssertEqual(
            e?.description.hasPrefix("t.toml:5: input[0].key: unknown key name 'KEY_NOPE'"), true, e?.description ?? "")
    }
}
