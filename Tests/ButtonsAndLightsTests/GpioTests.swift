import CLinuxInput
import Foundation
import Settings
import TestSupport
import XCTest

@testable import ButtonsAndLights

/// GPIO buttons through the kernel's uAPI v2 records. No GPIO chip exists on the test machine (its kernel has no
/// gpiolib), so opening a real chip is not tested here; the decoder, the resolution errors and the FIFO stand-in are.
final class GpioTests: XCTestCase {
    func testTheRecordLayoutIsTheKernels() {
        XCTAssertEqual(MemoryLayout<gpio_v2_line_event>.size, GpioLineEventDecoder.recordSize)
        XCTAssertEqual(MemoryLayout<gpio_v2_line_event>.offset(of: \.timestamp_ns), 0)
        XCTAssertEqual(MemoryLayout<gpio_v2_line_event>.offset(of: \.id), 8)
        XCTAssertEqual(MemoryLayout<gpio_v2_line_event>.offset(of: \.offset), 12)
        XCTAssertEqual(GpioLineEventDecoder.risingEdge, 1)
        XCTAssertEqual(GpioLineEventDecoder.fallingEdge, 2)
        // A record made the kernel's way decodes the same.
        var event = gpio_v2_line_event()
        (event.timestamp_ns, event.id, event.offset) = (123_456_789, GpioLineEventDecoder.risingEdge, 17)
        let edge = withUnsafeBytes(of: event) { GpioLineEventDecoder(offset: 17).edge(from: $0) }
        XCTAssertEqual(edge, ButtonEdge(pressed: true, time: 123_456_789))
    }

    func testRisingIsPressedFallingIsReleasedOtherOffsetsIgnored() {
        let decoder = GpioLineEventDecoder(offset: 17)
        func decode(_ bytes: [UInt8]) -> ButtonEdge? { bytes.withUnsafeBytes { decoder.edge(from: $0) } }
        XCTAssertEqual(
            decode(GpioLineEventBytes.record(rising: true, offset: 17, timeNs: 5_000_000_000)),
            ButtonEdge(pressed: true, time: 5_000_000_000))
        XCTAssertEqual(
            decode(GpioLineEventBytes.record(rising: false, offset: 17, timeNs: 5_100_000_000)),
            ButtonEdge(pressed: false, time: 5_100_000_000))
        XCTAssertNil(
            decode(GpioLineEventBytes.record(rising: true, offset: 4, timeNs: 1)),
            "another line's event is not this button's")
        var unknown = GpioLineEventBytes.record(rising: true, offset: 17, timeNs: 1)
        unknown[8] = 9
        XCTAssertNil(decode(unknown), "an unknown event id")
        XCTAssertNil(
            decode(Array(GpioLineEventBytes.record(rising: true, offset: 17, timeNs: 1).prefix(47))), "a partial record"
        )
        XCTAssertNil(decode([]))
    }

    func testNoChipOnThisMachineIsMissingNeverACrash() throws {
        let noChips = GpioChip.chipPaths().isEmpty
        func openError(chip: String, line: String = "17") -> ButtonOpenError? {
            var config = ApplianceConfig.Input()
            (config.kind, config.chip, config.line) = (.gpio, chip, line)
            do {
                let button = try GpioButton(config: config).open()
                button.close()
                return nil
            } catch {
                return error
            }
        }
        XCTAssertEqual(openError(chip: "/dev/gpiochip97"), .missing("no GPIO chip /dev/gpiochip97"))
        if noChips {
            XCTAssertEqual(
                openError(chip: "gpiochip97"),
                .missing("no GPIO chip labelled 'gpiochip97' (no GPIO chips on this machine)"))
            XCTAssertEqual(
                openError(chip: "pinctrl-bcm2711"),
                .missing("no GPIO chip labelled 'pinctrl-bcm2711' (no GPIO chips on this machine)"))
        }
        // A file that is no chip: there, but unusable.
        guard case .failed(let why)? = openError(chip: "/dev/null") else { return XCTFail("/dev/null is not a chip") }
        XCTAssertTrue(why.contains("/dev/null is not a GPIO chip"), why)
        // The same for an output light.
        var output = ApplianceConfig.Output()
        (output.kind, output.chip, output.line) = (.gpio, "/dev/gpiochip97", "3")
        XCTAssertThrowsError(try Lights.open(output)) {
            XCTAssertEqual($0 as? LightError, LightError("no GPIO chip /dev/gpiochip97"))
        }
    }

    func testChipPathsInNumericOrder() throws {
        let folder = NSTemporaryDirectory() + "gpio-dev-\(UUID().uuidString.prefix(6))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["gpiochip10", "gpiochip2", "gpiochip0", "ttyS0"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/" + name, contents: nil))
        }
        XCTAssertEqual(
            GpioChip.chipPaths(in: folder).map { ($0 as NSString).lastPathComponent },
            ["gpiochip0", "gpiochip2", "gpiochip10"])
    }

    func testAFifoIsAStandInChipDebouncedInSoftware() throws {
        let fifo = NSTemporaryDirectory() + "gpio-fifo-\(UUID().uuidString.prefix(6))"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        defer { unlink(fifo) }
        var config = ApplianceConfig.Input()
        (config.kind, config.chip, config.line, config.debounceMs) = (.gpio, fifo, "5", 30)
        let device = GpioButton(config: config)
        XCTAssertEqual(device.description, "\(fifo) line 5")
        let button = try device.open()
        defer { button.close() }
        XCTAssertEqual(button.recordSize, 48)
        XCTAssertEqual(button.softwareDebounce, .milliseconds(30), "a pipe has no kernel debounce")
        XCTAssertNil(button.grabbed)
        XCTAssertTrue(button.note?.contains("stand-in") == true, button.note ?? "")

        // Records written to the FIFO come out of the button's descriptor and decode as edges of line 5 only.
        let writer = open(fifo, O_WRONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(writer, 0)
        defer { close(writer) }
        let bytes =
            GpioLineEventBytes.record(rising: true, offset: 5, timeNs: 1_000)
            + GpioLineEventBytes.record(rising: true, offset: 6, timeNs: 1_500)
            + GpioLineEventBytes.record(rising: false, offset: 5, timeNs: 2_000)
        XCTAssertEqual(bytes.withUnsafeBytes { write(writer, $0.baseAddress, $0.count) }, 144)
        var buffer = [UInt8](repeating: 0, count: 480)
        let n = buffer.withUnsafeMutableBytes { read(button.fd, $0.baseAddress, $0.count) }
        XCTAssertEqual(n, 144)
        let edges = buffer.withUnsafeBytes { b in
            stride(from: 0, to: n, by: 48).compactMap {
                button.edge(from: UnsafeRawBufferPointer(rebasing: b[$0..<$0 + 48]))
            }
        }
        XCTAssertEqual(edges, [ButtonEdge(pressed: true, time: 1_000), ButtonEdge(pressed: false, time: 2_000)])

        // No debounce asked for: none done.
        config.debounceMs = 0
        let plain = try GpioButton(config: config).open()
        XCTAssertNil(plain.softwareDebounce)
        plain.close()
        // A FIFO has no line names.
        config.line = "GPIO17"
        XCTAssertThrowsError(try GpioButton(config: config).open()) { error in
            guard case .failed(let why)? = error as? ButtonOpenError else { return XCTFail("\(error)") }
            XCTAssertTrue(why.contains("line must be an offset"), why)
        }
    }
}
