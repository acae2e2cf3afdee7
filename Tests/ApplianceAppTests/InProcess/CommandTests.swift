import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Settings
import XCTest

@testable import ApplianceApp

/// The appliance built in-process and driven through its one entry point, as every front end drives it.
final class CommandTests: XCTestCase {
    func testRecordingThroughTheEntryPointWithTypedEvents() async throws {
        let test = try await TestAppliance()
        defer { test.removeDirectory() }
        let events = EventReader(test.appliance)
        guard case .status(let idle) = try await test.perform(.status) else { return XCTFail("status") }
        XCTAssertEqual(idle.state, .idle)
        XCTAssertTrue(idle.ready)
        XCTAssertEqual(idle.activeCamera, "main")

        guard case .recordingStarted(let started) = try await test.perform(.recordStart(title: "  In process 🎥 "))
        else { return XCTFail("start") }
        XCTAssertEqual(started.title, "In process 🎥")
        let announced = await events.first { if case .recordingStarted(let s) = $0 { s } else { nil } }
        XCTAssertEqual(announced, started)
        guard case .status(let busy) = try await test.perform(.status) else { return XCTFail("status") }
        XCTAssertEqual(busy.state, .recording)
        XCTAssertEqual(busy.recording?.id, started.id)
        let again = await test.refusal(.recordStart(title: nil))
        XCTAssertEqual(again?.code, .conflict)

        try await test.waitUntilRecorded(1.5)
        guard case .recordingStopped(let clip) = try await test.perform(.recordStop(title: nil)) else {
            return XCTFail("stop")
        }
        XCTAssertEqual(clip.id, started.id)
        XCTAssertEqual(clip.stopReason, .request)
        XCTAssertGreaterThan(clip.videoFrames, 30)
        XCTAssertEqual(Double(clip.durationMs), 1500, accuracy: 400)
        let media = try Discoverer.inspect(path: clip.path)
        XCTAssertEqual(media.video.first?.width, 640)
        XCTAssertEqual(media.audio.count, 1)
        let stopped = await events.first { if case .recordingStopped(let r) = $0 { r } else { nil } }
        XCTAssertEqual(stopped, clip)
        let thumbnail = await events.first { if case .thumbnailReady(let t) = $0 { t } else { nil } }
        XCTAssertEqual(thumbnail?.id, clip.id)
        let idleAgain = await test.refusal(.recordStop(title: nil))
        XCTAssertEqual(idleAgain?.code, .conflict)
        XCTAssertEqual(idleAgain?.message, "not recording")
        try await test.stop()
    }

    func testLibraryCommandsKeepTheirContracts() async throws {
        let test = try await TestAppliance()
        defer { test.removeDirectory() }
        _ = try await test.perform(.recordStart(title: nil))
        try await test.waitUntilRecorded(0.5)
        guard case .recordingStopped(let clip) = try await test.perform(.recordStop(title: "first")) else {
            return XCTFail("stop")
        }

        guard case .list(let page) = try await test.perform(.list(page: 1, perPage: 10)) else { return XCTFail("list") }
        XCTAssertEqual(page.total, 1)
        XCTAssertEqual(page.items.first?.title, "first")
        guard
            case .recording(let renamed) = try await test.perform(
                .rename(id: String(clip.id.prefix(6)), title: "renamed"))
        else { return XCTFail("rename") }
        XCTAssertEqual(renamed.title, "renamed")
        _ = try await test.perform(.lock(id: clip.id))
        let locked = await test.refusal(.delete(id: clip.id, force: false))
        XCTAssertEqual(locked?.code, .conflict)
        guard case .info(let info) = try await test.perform(.info(id: clip.id)) else { return XCTFail("info") }
        XCTAssertEqual(info.measured.width, 640)
        XCTAssertNil(info.measured.error)
        guard case .deleted(let deleted) = try await test.perform(.delete(id: clip.id, force: true)) else {
            return XCTFail("delete")
        }
        XCTAssertEqual(deleted.deletedFiles.count, 2, "media and thumbnail")
        XCTAssertFalse(FileManager.default.fileExists(atPath: clip.path))

        for (command, code) in [
            (Command.info(id: "ffff"), ApplianceError.Code.notFound), (.info(id: "x'; DROP"), .badRequest),
            (.list(page: 0, perPage: 10), .badRequest), (.list(page: 1, perPage: 1001), .badRequest),
            (.rename(id: clip.id, title: "\u{7}"), .badRequest), (.recordStart(title: "   "), .badRequest),
            (.switchCamera(.named("nope")), .notFound), (.backupRetry(id: nil), .unavailable),
        ] {
            let refusal = await test.refusal(command)
            XCTAssertEqual(refusal?.code, code, "\(command)")
        }
        guard case .backupStatus(let backup) = try await test.perform(.backupStatus) else { return XCTFail("backup") }
        XCTAssertFalse(backup.enabled)
        try await test.stop()
    }

    func testShutdownFinalisesTheRecordingThenRefusesCommands() async throws {
        let test = try await TestAppliance()
        defer { test.removeDirectory() }
        let events = EventReader(test.appliance)
        guard case .recordingStarted(let started) = try await test.perform(.recordStart(title: nil)) else {
            return XCTFail("start")
        }
        try await test.waitUntilRecorded(1)
        try await test.stop()
        let stopped = await events.first { if case .recordingStopped(let r) = $0 { r } else { nil } }
        XCTAssertEqual(stopped?.id, started.id)
        XCTAssertEqual(stopped?.stopReason, .shutdown)
        let path = try XCTUnwrap(stopped?.path)
        XCTAssertGreaterThan(try XCTUnwrap(Discoverer.inspect(path: path).duration).nanoseconds, 800_000_000)
        let refusal = await test.refusal(.status)
        XCTAssertEqual(refusal?.code, .unavailable)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: test.appliance.data.partialDir).filter {
                $0.hasSuffix(".mp4")
            }, [])
    }

    func testMaxDurationEndsTheClipExactlyAndFinalisesIt() async throws {
        let test = try await TestAppliance { $0.recording.maxDurationS = 2 }
        defer { test.removeDirectory() }
        let events = EventReader(test.appliance)
        _ = try await test.perform(.recordStart(title: nil))
        let stopped = await events.first(within: .seconds(8)) {
            if case .recordingStopped(let r) = $0 { r } else { nil }
        }
        XCTAssertEqual(stopped?.stopReason, .maxDuration)
        XCTAssertEqual(
            Double(try XCTUnwrap(stopped?.durationMs)), 2000, accuracy: 70, "cut by the probes at max_duration_s")
        guard case .status(let status) = try await test.perform(.status) else { return XCTFail("status") }
        XCTAssertEqual(status.state, .idle)
        try await test.stop()
    }

    func testACameraFragmentEndingInCapsRecords() async throws {
        let test = try await TestAppliance { config in
            var camera = ApplianceConfig.Camera()
            camera.name = "pinned"
            camera.source = "pipeline"
            camera.pipeline = "videotestsrc is-live=true pattern=ball ! video/x-raw,width=320,height=240,framerate=15/1"
            config.cameras = [camera]
        }
        defer { test.removeDirectory() }
        guard case .status(let status) = try await test.perform(.status) else { return XCTFail("status") }
        XCTAssertEqual(status.activeCamera, "pinned")
        _ = try await test.perform(.recordStart(title: nil))
        try await test.waitUntilRecorded(1.2)
        guard case .recordingStopped(let clip) = try await test.perform(.recordStop(title: nil)) else {
            return XCTFail("stop")
        }
        XCTAssertGreaterThan(clip.videoFrames, 20)
        let media = try Discoverer.inspect(path: clip.path)
        XCTAssertEqual(media.video.first?.width, 640, "normalised to the output size")
        try await test.stop()
    }
}
