import ApplianceBase
import ApplianceProtocol
import ButtonsAndLights
import Foundation
import Settings
import TestSupport
import XCTest

@testable import ApplianceApp

/// The recording light against an LED-class stand-in: a folder with `brightness` and `max_brightness` files whose
/// brightness the test reads, as the kernel's LED class would be written. Polls with generous timeouts; no timing
/// is asserted.
final class RecordingLightTests: XCTestCase {
    /// A stand-in LED folder, brightness at a value the daemon never writes (so the first write is seen).
    static func ledFolder(in directory: URL, max: Int = 255, name: String = "led-rec") throws -> String {
        let folder = directory.appendingPathComponent(name).path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try "\(max)\n".write(toFile: folder + "/max_brightness", atomically: true, encoding: .utf8)
        try "7\n".write(toFile: folder + "/brightness", atomically: true, encoding: .utf8)
        return folder
    }

    static func output(led: String) -> ApplianceConfig.Output {
        var output = ApplianceConfig.Output()
        (output.label, output.kind, output.led) = ("rec", .led, led)
        return output
    }

    static func brightness(_ folder: String) -> String {
        ((try? String(contentsOfFile: folder + "/brightness", encoding: .utf8)) ?? "").trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    /// Waits until the brightness file reads `value`.
    func waitFor(
        _ value: String, in folder: String, within seconds: Double = 10, file: StaticString = #filePath,
        line: UInt = #line
    ) async {
        if await Poll.asyncUntil(timeout: seconds, every: 0.02, { Self.brightness(folder) == value }) { return }
        XCTFail(
            "brightness is '\(Self.brightness(folder))', not '\(value)', after \(seconds) s", file: file, line: line)
    }

    func outputs(_ app: TestAppliance) async throws -> [OutputStatus] {
        guard case .status(let s) = try await app.perform(.status) else {
            XCTFail("status")
            return []
        }
        return s.outputs ?? []
    }

    func testOnWhileRecordingOffWhenIdle() async throws {
        let directory = try TestAppliance.makeDirectory()
        let led = try Self.ledFolder(in: directory)
        let app = try await TestAppliance(directory: directory) { $0.outputs = [Self.output(led: led)] }
        defer { app.removeDirectory() }
        await waitFor("0", in: led)
        var outputs = try await outputs(app)
        XCTAssertEqual(outputs, [OutputStatus(label: "rec", kind: "led", role: "recording", device: led, state: .off)])

        _ = try await app.perform(.recordStart(title: nil))
        await waitFor("255", in: led)
        outputs = try await self.outputs(app)
        XCTAssertEqual(outputs.first?.state, .on)
        // the subject: steady, no blinking while recording without a fault
        try await Task.sleep(for: .milliseconds(600))
        XCTAssertEqual(Self.brightness(led), "255")

        _ = try await app.perform(.recordStop(title: nil))
        await waitFor("0", in: led)
        outputs = try await self.outputs(app)
        XCTAssertEqual(outputs.first?.state, .off)

        try await app.stop()
        XCTAssertEqual(Self.brightness(led), "0", "off at shutdown")
    }

    /// Two channels, two lights: one follows every channel (on while any records), one names the rear channel. The
    /// front stopping while the rear records leaves both on; each goes out when what it follows stops.
    func testALightThatNamesAChannelFollowsItAndOneThatDoesNotFollowsAll() async throws {
        let directory = try TestAppliance.makeDirectory()
        let any = try Self.ledFolder(in: directory, name: "led-any")
        let rear = try Self.ledFolder(in: directory, name: "led-rear")
        let app = try await TestAppliance(directory: directory) { config in
            config.addFrontAndRearChannels()
            var anyLight = Self.output(led: any)
            var rearLight = Self.output(led: rear)
            (anyLight.label, rearLight.label, rearLight.channel) = ("any", "rear", "rear")
            config.outputs = [anyLight, rearLight]
        }
        defer { app.removeDirectory() }
        await waitFor("0", in: any)
        await waitFor("0", in: rear)
        _ = try await app.perform(.recordStart(title: nil, channel: "front"))
        await waitFor("255", in: any)
        XCTAssertEqual(Self.brightness(rear), "0", "the rear light does not follow the front")
        _ = try await app.perform(.recordStart(title: nil, channel: "rear"))
        await waitFor("255", in: rear)
        _ = try await app.perform(.recordStop(title: nil, channel: "front"))
        guard case .status(let status) = try await app.perform(.status) else { return XCTFail("status") }
        XCTAssertEqual(status.channels.map(\.state), [.idle, .recording])
        XCTAssertEqual(Self.brightness(any), "255", "the rear still records")
        XCTAssertEqual(Self.brightness(rear), "255")
        _ = try await app.perform(.recordStop(title: nil, channel: "rear"))
        await waitFor("0", in: any)
        await waitFor("0", in: rear)
        try await app.stop()
    }

    func testBlinksWhileACameraHasFailed() async throws {
        let directory = try TestAppliance.makeDirectory()
        let led = try Self.ledFolder(in: directory, max: 1)
        var breaks = ApplianceConfig.Camera()
        var good = ApplianceConfig.Camera()
        (breaks.name, breaks.source, breaks.pipeline) = (
            "breaks", "pipeline", "videotestsrc is-live=true pattern=ball ! identity error-after=30"
        )
        (good.name, good.source) = ("good", "test")
        let app = try await TestAppliance(directory: directory) { config in
            config.cameras = [breaks, good]
            config.outputs = [Self.output(led: led)]
        }
        defer { app.removeDirectory() }
        let failure = await app.events.first(within: .seconds(20)) {
            if case .cameraFailed(let f) = $0 { f } else { nil }
        }
        XCTAssertEqual(failure?.camera, "breaks")

        // Both levels come and go, over a few reads, idle and while recording.
        for recording in [false, true] {
            if recording { _ = try await app.perform(.recordStart(title: nil)) }
            var seen = Set<String>()
            await Poll.asyncUntil(timeout: 10, every: 0.04) {
                // A regular file stands in for sysfs here: read between the light's truncate and its write, it is
                // empty (a sysfs attribute never is).
                let level = Self.brightness(led)
                if !level.isEmpty { seen.insert(level) }
                return seen == ["0", "1"]
            }
            XCTAssertEqual(seen, ["0", "1"], recording ? "recording" : "idle")
            let outputs = try await outputs(app)
            XCTAssertEqual(outputs.first?.state, .blinking)
            XCTAssertEqual(outputs.first?.detail, "camera_failed: breaks")
        }
        _ = try await app.perform(.recordStop(title: nil))
        try await app.stop()
        XCTAssertEqual(Self.brightness(led), "0", "off at shutdown")
    }

    func testAMissingLedIsFailedInStatusAndTheDaemonGoesOn() async throws {
        let directory = try TestAppliance.makeDirectory()
        let led = directory.appendingPathComponent("no-such-led").path
        let app = try await TestAppliance(directory: directory) { $0.outputs = [Self.output(led: led)] }
        defer { app.removeDirectory() }
        var outputs: [OutputStatus] = []
        try await Poll.asyncUntil(timeout: 10) {
            outputs = try await self.outputs(app)
            return outputs.first?.state == .failed
        }
        XCTAssertEqual(
            outputs,
            [
                OutputStatus(
                    label: "rec", kind: "led", role: "recording", device: led, state: .failed,
                    detail: "no LED \(led)")
            ])
        _ = try await app.perform(.recordStart(title: nil))
        try await app.waitUntilRecorded(0.3)
        guard case .recordingStopped(let clip) = try await app.perform(.recordStop(title: nil)) else {
            return XCTFail("stop")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: clip.path))

        // The LED appears: it is picked up on a retry and shows the state.
        try FileManager.default.createDirectory(atPath: led, withIntermediateDirectories: true)
        try "5\n".write(toFile: led + "/brightness", atomically: true, encoding: .utf8)
        await waitFor("0", in: led, within: RecordingLight.retry.seconds + 10)
        _ = try await app.perform(.recordStart(title: nil))
        await waitFor("1", in: led, within: 10)  // no max_brightness file: 1
        outputs = try await self.outputs(app)
        XCTAssertEqual(outputs.first?.state, .on)
        _ = try await app.perform(.recordStop(title: nil))
        try await app.stop()
    }
}

extension Duration {
    fileprivate var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
