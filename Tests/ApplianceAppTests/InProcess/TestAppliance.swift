import ApplianceBase
import ApplianceProtocol
import Foundation
import Logging
import Settings
import TestSupport
import XCTest

@testable import ApplianceApp

/// The whole appliance built in this process, on a temporary data folder, with live test sources: for tests of
/// commands, events, the record state machine, shutdown and recovery without spawning the binary.
final class TestAppliance: @unchecked Sendable {
    let directory: URL
    let appliance: Appliance
    /// Every event since the appliance was built.
    let events: EventReader
    private var running: Task<Void, Error>?

    static func config(
        directory: URL, cameras: [ApplianceConfig.Camera]? = nil, change: (inout ApplianceConfig) -> Void = { _ in }
    ) -> ApplianceConfig {
        var config = ApplianceConfig()
        config.dataDir = directory.appendingPathComponent("data").path
        config.socket = directory.appendingPathComponent("ctl.sock").path
        config.audio.source = "test"
        config.preview.sink = "none"
        config.video.width = 640
        config.video.height = 360
        var camera = ApplianceConfig.Camera()
        camera.source = "test"
        config.cameras = cameras ?? [camera]
        change(&config)
        return config
    }

    static func makeDirectory() throws -> URL {
        let directory = URL(fileURLWithPath: "/tmp").appendingPathComponent(
            "appl-inproc-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static let logger = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

    /// Builds and runs an appliance; returns once it is ready.
    init(directory: URL? = nil, config change: (inout ApplianceConfig) -> Void = { _ in }) async throws {
        self.directory = try directory ?? Self.makeDirectory()
        appliance = try await Appliance.start(
            config: Self.config(directory: self.directory, change: change), logger: Self.logger,
            handleSignals: false)
        let appliance = self.appliance
        events = EventReader(appliance)  // before the services run: their first events are seen too
        running = Task { try await appliance.run() }
        let ready = await appliance.readiness.wait(timeout: .seconds(20))
        XCTAssertTrue(ready, "ready within 20 s")
        // Each test's output names the encoder it records with (the default: `auto`'s choice).
        if case .status(let status)? = try? await appliance.perform(.status) {
            print("TestAppliance: encoder \(status.encoder) (\(status.encoderChoice?.how.rawValue ?? "?"))")
        }
    }

    /// Graceful shutdown; returns when every service has stopped.
    func stop() async throws {
        await appliance.shutdown()
        try await running?.value
        running = nil
    }

    func removeDirectory() { try? FileManager.default.removeItem(at: directory) }

    /// Performs a command and returns its typed result, failing the test on an error.
    func perform(_ command: Command, file: StaticString = #filePath, line: UInt = #line) async throws -> CommandResult {
        do {
            return try await appliance.perform(command)
        } catch {
            XCTFail("\(command.name): \(error)", file: file, line: line)
            throw error
        }
    }

    /// The error a command is refused with.
    func refusal(_ command: Command) async -> ApplianceError? {
        do {
            _ = try await appliance.perform(command)
            return nil
        } catch {
            return error
        }
    }
}

/// Collects the appliance's typed events from the moment it is made, for tests to look through.
final class EventReader: Sendable {
    private let events = Locked<[ApplianceEvent]>([])
    private let subscription: EventHub.Subscription
    private let hub: EventHub

    init(_ appliance: Appliance) {
        hub = appliance.events
        subscription = appliance.events.subscribe()
        let events = self.events
        let stream = subscription.events
        Task {
            for await record in stream { events.withLock { $0.append(record.event) } }
        }
    }

    deinit { hub.unsubscribe(subscription.id) }

    /// The first event so far, or within `timeout`, that `match` accepts.
    func first<T>(within timeout: Duration = .seconds(10), _ match: (ApplianceEvent) -> T?) async -> T? {
        var found: T?
        await Poll.asyncUntil(timeout: timeout.seconds, every: 0.02) {
            found = events.withLock { $0.lazy.compactMap(match).first }
            return found != nil
        }
        return found
    }

    var all: [ApplianceEvent] { events.withLock { $0 } }
}

/// Waits on the appliance's status (what `status` answers), as the end-to-end tests wait on the daemon's.
extension TestAppliance {
    func status() async throws -> StatusReport {
        guard case .status(let report) = try await perform(.status) else {
            throw ApplianceError(.internalError, "status: unexpected result")
        }
        return report
    }

    /// Waits until the recording in progress satisfies `condition`; fails the test and throws when it does not
    /// within `timeout`.
    func waitForRecording(
        _ what: String, timeout: TimeInterval = 30, file: StaticString = #filePath, line: UInt = #line,
        _ condition: (StatusReport.Live) -> Bool
    ) async throws {
        var last: StatusReport.Live?
        let held = try await Poll.asyncUntil(timeout: timeout) {
            last = try await status().recording
            return last.map(condition) ?? false
        }
        if !held {
            XCTFail(
                """
                the recording did not reach \(what) within \(timeout) s (last: \
                \(last.map { "\($0)" } ?? "not recording"))
                """,
                file: file, line: line)
            throw ApplianceError(.internalError, "timed out waiting for \(what)")
        }
    }

    /// "Record for `seconds`": waits until the recording in progress has `seconds` of video written
    /// (`recording.duration_ms`).
    func waitUntilRecorded(_ seconds: Double, file: StaticString = #filePath, line: UInt = #line) async throws {
        try await waitForRecording("\(seconds) s of video", timeout: 20 + 3 * seconds, file: file, line: line) {
            $0.durationMs >= Int(seconds * 1000)
        }
    }

    /// Waits until the recording in progress has gone on `seconds` since its request (`recording.elapsed_ms`): with
    /// pre-record, where the video written includes the pre-roll.
    func waitUntilElapsed(_ seconds: Double, file: StaticString = #filePath, line: UInt = #line) async throws {
        try await waitForRecording("\(seconds) s since the request", timeout: 20 + 3 * seconds, file: file, line: line)
        {
            $0.elapsedMs >= Int(seconds * 1000)
        }
    }

    /// Waits until `seconds` of video have passed the camera selector (`output.frames` at the configured framerate)
    /// since the count was `since` (default: since start): the pre-record window, which holds what came since it
    /// started filling up to its length, has them (the status has no field for the window itself).
    func waitForFrames(seconds: Double, since: UInt64 = 0, file: StaticString = #filePath, line: UInt = #line)
        async throws
    {
        var last: StatusReport?
        let held = try await Poll.asyncUntil(timeout: 20 + 3 * seconds) {
            last = try await status()
            return last.map { Double($0.output.frames) >= Double(since) + seconds * Double($0.framerate) } ?? false
        }
        if !held {
            XCTFail(
                """
                \(seconds) s of frames did not pass the camera selector \
                (\(last.map { "\($0.output.frames)" } ?? "?"))
                """,
                file: file, line: line)
            throw ApplianceError(.internalError, "timed out waiting for frames")
        }
    }
}

extension ApplianceConfig {
    /// Two manual channels: `front` with the default camera and the microphone, `rear` with a test camera of its own
    /// (`cabin`, a ball) at `rearVideo` (default: the config's).
    mutating func addFrontAndRearChannels(rearVideo: Video? = nil) {
        var cabin = Camera()
        (cabin.name, cabin.source, cabin.pattern) = ("cabin", "test", "ball")
        cameras.append(cabin)
        channelTables = [
            Channel(
                name: "front", cameras: ["main"], video: video, trigger: "manual", preRecordS: 0, postRecordS: 5,
                audio: true),
            Channel(
                name: "rear", cameras: ["cabin"], video: rearVideo ?? video, trigger: "manual", preRecordS: 0,
                postRecordS: 5, audio: false),
        ]
    }
}
