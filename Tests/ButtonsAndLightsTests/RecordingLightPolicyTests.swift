import ApplianceProtocol
import Foundation
import XCTest

@testable import ButtonsAndLights

/// The recording light's decision, events and answers in, on/off/blinking out.
final class RecordingLightPolicyTests: XCTestCase {
    static func status(
        _ state: RecorderState, storage: StorageStatus.State = .ok, full: String? = nil, capacity: Capacity? = nil
    ) -> StatusReport {
        var s = StatusReport(
            state: state, ready: true, recording: nil, cameras: ["cam"], activeCamera: "cam", cameraSources: [:],
            audioSource: "test", preview: "none", encoder: "x264", width: 640, height: 360, framerate: 30,
            dataDir: "/tmp", uptimeS: 1, recordingsThisRun: 0, lastError: nil, gstreamerVersion: "1.22",
            recordingsTotal: 0, databaseBytes: 0, recovery: nil,
            output: OutputStats(frames: 0, slotCollisions: 0, filledSlots: 0, missingSlots: 0, missingAtEncoder: 0),
            storage: StorageStatus(state: storage, recordingsDir: "/tmp/r"))
        (s.storageFull, s.capacity) = (full, capacity)
        return s
    }

    static func capacity(free: Int64, used: Int64, locked: Int64 = 0) -> Capacity {
        Capacity(
            usedBytes: used, freeBytes: free, budgetBytes: used + free, lockedBytes: locked, lockedPercent: 0,
            bitrateKbps: nil, wrapsInS: nil, wrapsIn: nil)
    }

    func testOnWhileRecordingOffWhenIdle() {
        var facts = LightFacts()
        XCTAssertEqual(RecordingLightPolicy.show(facts), .off)
        XCTAssertEqual(
            RecordingLightPolicy.fold(
                .recordingStarted(RecordingStarted(id: "a", title: "t", partialPath: "/p", createdAt: Date())),
                into: &facts), [])
        XCTAssertEqual(RecordingLightPolicy.show(facts), .on)
        let stopped = RecordingLightPolicy.fold(.recordingStopped(Self.result()), into: &facts)
        XCTAssertEqual(stopped, .status, "the clip changed the capacity: status is asked again")
        XCTAssertEqual(RecordingLightPolicy.show(facts), .off)
    }

    /// With channels, a light follows every channel (on while any records) or the one it names; status says each
    /// channel's state, and a channel finalising keeps what the events said.
    func testALightFollowsEveryChannelOrTheOneItNames() {
        var facts = LightFacts()
        var started = RecordingStarted(id: "a", title: "t", partialPath: "/p", createdAt: Date())
        started.channel = "front"
        _ = RecordingLightPolicy.fold(.recordingStarted(started), into: &facts)
        started.channel = "rear"
        _ = RecordingLightPolicy.fold(.recordingStarted(started), into: &facts)
        var stopped = Self.result()
        stopped.channel = "front"
        _ = RecordingLightPolicy.fold(.recordingStopped(stopped), into: &facts)
        XCTAssertEqual(RecordingLightPolicy.show(facts), .on, "the rear still records")
        XCTAssertEqual(RecordingLightPolicy.show(facts, channel: "front"), .off)
        XCTAssertEqual(RecordingLightPolicy.show(facts, channel: "rear"), .on)

        var status = Self.status(.idle)
        status.channels = [("front", RecorderState.recording), ("rear", .stopping)].map {
            ChannelStatus(
                name: $0.0, state: $0.1, recordingId: nil, cameras: [], activeCamera: "", encoder: "", width: 640,
                height: 360, framerate: 30)
        }
        facts.apply(status, minFreeMb: 0)
        XCTAssertEqual(facts.recordingChannels, ["front", "rear"], "stopping keeps what the events said")
        stopped.channel = "rear"
        _ = RecordingLightPolicy.fold(.recordingStopped(stopped), into: &facts)
        XCTAssertEqual(RecordingLightPolicy.show(facts, channel: "rear"), .off)
        status.channels[0].state = .idle
        facts.apply(status, minFreeMb: 0)
        XCTAssertEqual(RecordingLightPolicy.show(facts), .off)
        XCTAssertFalse(facts.recording)
    }

    func testStatusStoppingKeepsWhatTheEventsSaid() {
        var facts = LightFacts()
        facts.apply(Self.status(.recording), minFreeMb: 512)
        XCTAssertTrue(facts.recording)
        facts.apply(Self.status(.stopping), minFreeMb: 512)
        XCTAssertTrue(facts.recording, "still writing the file")
        facts.recording = false  // recording_stopped came
        facts.apply(Self.status(.stopping), minFreeMb: 512)
        XCTAssertFalse(facts.recording, "a late answer does not light it again")
        facts.apply(Self.status(.idle), minFreeMb: 512)
        XCTAssertEqual(RecordingLightPolicy.show(facts), .off)
    }

    func testFaultsBlinkWhateverTheRecorderDoes() {
        var facts = LightFacts()
        facts.apply(Self.status(.recording, storage: .missing), minFreeMb: 512)
        XCTAssertEqual(RecordingLightPolicy.show(facts), .blinking("storage_missing"))
        facts.apply(Self.status(.idle, full: "no clip left to delete"), minFreeMb: 512)
        XCTAssertEqual(RecordingLightPolicy.show(facts), .blinking("storage_full: no clip left to delete"))
        facts.apply(
            Self.status(.recording, capacity: Self.capacity(free: 600_000_000, used: 300_000_000)), minFreeMb: 512)
        XCTAssertEqual(RecordingLightPolicy.show(facts), .blinking("storage_low"), "0.9 GB of room under 2 × 512 MB")
        facts.apply(
            Self.status(.recording, capacity: Self.capacity(free: 600_000_000, used: 600_000_000)), minFreeMb: 512)
        XCTAssertEqual(RecordingLightPolicy.show(facts), .on, "1.2 GB of room: fine")
        facts.apply(
            Self.status(.recording, capacity: Self.capacity(free: 600_000_000, used: 600_000_000, locked: 500_000_000)),
            minFreeMb: 512)
        XCTAssertEqual(RecordingLightPolicy.show(facts), .blinking("storage_low"), "locked clips are no room")

        facts = LightFacts()
        _ = RecordingLightPolicy.fold(.cameraFailed(CameraFailure(camera: "front", reason: "EOS")), into: &facts)
        XCTAssertEqual(RecordingLightPolicy.show(facts), .blinking("camera_failed: front"))
        facts.apply(
            CamerasReport(
                active: "front",
                cameras: [
                    CameraReport(
                        name: "front", source: "v4l2", device: "/dev/video0", state: "active", detail: nil,
                        alwaysOn: false),
                    CameraReport(
                        name: "back", source: "v4l2", device: "/dev/video2", state: "missing", detail: nil,
                        alwaysOn: false),
                ], devices: []))
        XCTAssertEqual(
            RecordingLightPolicy.show(facts), .blinking("camera_missing: back"), "the answer replaces the guess")
        facts.missingCameras = []
        XCTAssertEqual(RecordingLightPolicy.show(facts), .off)

        XCTAssertEqual(
            RecordingLightPolicy.fold(.backupPaused(BackupPause(reason: "credentials refused")), into: &facts), .backup)
        XCTAssertEqual(RecordingLightPolicy.show(facts), .blinking("backup_paused: credentials refused"))
        _ = RecordingLightPolicy.fold(.backupResumed(BackupPause(reason: "retry")), into: &facts)
        XCTAssertEqual(RecordingLightPolicy.show(facts), .off)
        facts.apply(
            BackupStatus(
                enabled: true, url: "http://x", onlyLocked: false, bandwidthKbps: 0, paused: true, pauseReason: nil,
                counts: BackupCounts(), current: nil, lastError: nil, nextRetryAt: nil))
        XCTAssertEqual(RecordingLightPolicy.show(facts), .blinking("backup_paused: paused"))
    }

    func testTheMostSeriousFaultIsNamed() {
        var facts = LightFacts(recording: true, storageMissing: true, failedCameras: ["a", "b"], backupPaused: "x")
        XCTAssertEqual(
            RecordingLightPolicy.faults(facts), ["storage_missing", "camera_failed: a, b", "backup_paused: x"])
        facts.storageMissing = false
        XCTAssertEqual(RecordingLightPolicy.show(facts), .blinking("camera_failed: a, b"))
    }

    func testEventsTheLightDoesNotFollowChangeNothing() {
        var facts = LightFacts(recording: true)
        XCTAssertEqual(RecordingLightPolicy.fold(.ready(Ready(startupMs: 1)), into: &facts), [])
        XCTAssertEqual(facts, LightFacts(recording: true))
        XCTAssertEqual(
            RecordingLightPolicy.fold(.cameraSwitched(CameraSwitched(from: "a", to: "b", latencyMs: 1)), into: &facts),
            .cameras)
    }

    func testBlinkPhases() {
        XCTAssertEqual([true, false].map(LightShow.on.lit), [true, true])
        XCTAssertEqual([true, false].map(LightShow.off.lit), [false, false])
        XCTAssertEqual([true, false].map(LightShow.blinking("x").lit), [true, false])
    }

    static func result() -> RecordingResult {
        RecordingResult(
            id: "a", title: "t", path: "/r/a.mp4", thumbnail: nil, durationMs: 1000, videoFrames: 30, droppedFrames: 0,
            audioDurationMs: nil, avOffsetMs: nil, sizeBytes: 1, width: 640, height: 360, framerate: 30,
            createdAt: Date(), endedAt: Date(), stopReason: .request, startLatencyMs: nil, stopLatencyMs: nil)
    }
}
