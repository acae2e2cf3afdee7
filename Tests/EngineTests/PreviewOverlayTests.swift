import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import TestSupport
import XCTest

@testable import Engine

/// The preview overlay's text (a pure function) and the service that keeps a real textoverlay's `text` in step with
/// the event stream.
final class PreviewOverlayTests: XCTestCase {
    func testElapsedTimeIsMinutesAndSecondsThenHours() {
        XCTAssertEqual(PreviewOverlayText.elapsed(0), "00:00")
        XCTAssertEqual(PreviewOverlayText.elapsed(9), "00:09")
        XCTAssertEqual(PreviewOverlayText.elapsed(65), "01:05")
        XCTAssertEqual(PreviewOverlayText.elapsed(3599), "59:59")
        XCTAssertEqual(PreviewOverlayText.elapsed(3600), "1:00:00")
        XCTAssertEqual(PreviewOverlayText.elapsed(3600 * 12 + 61), "12:01:01")
        XCTAssertEqual(PreviewOverlayText.elapsed(-3), "00:00")
    }

    func testIdleIsEmptyAndRecordingShowsTheMarkTimeAndCamera() {
        XCTAssertEqual(PreviewOverlayText.markup(elapsedSeconds: nil, camera: "main"), "")
        XCTAssertEqual(
            PreviewOverlayText.markup(elapsedSeconds: 62, camera: "main"),
            "<span foreground=\"#FF0000\">●</span> REC  01:02  main")
        XCTAssertEqual(
            PreviewOverlayText.markup(elapsedSeconds: 0, camera: nil),
            "<span foreground=\"#FF0000\">●</span> REC  00:00")
    }

    func testCameraNamesAreEscapedForPangoMarkup() {
        XCTAssertEqual(
            PreviewOverlayText.escaped("A&B <rear> \"x\" 'y'"), "A&amp;B &lt;rear&gt; &quot;x&quot; &apos;y&apos;")
        XCTAssertEqual(PreviewOverlayText.escaped("Küche\nlinks\t📷"), "Küche links 📷")
        let markup = PreviewOverlayText.markup(elapsedSeconds: 1, camera: "<span foreground=\"red\">x</span>")
        XCTAssertFalse(markup.contains("<span foreground=\"red\">"))
    }

    func testEventsMoveTheState() {
        let state = Locked(PreviewOverlay.State(camera: "front"))
        XCTAssertTrue(
            PreviewOverlay.apply(.cameraSwitched(CameraSwitched(from: "front", to: "rear", latencyMs: 1)), to: state))
        XCTAssertEqual(state.withLock { $0.camera }, "rear")
        XCTAssertTrue(PreviewOverlay.apply(.recordingStarted(Self.started(secondsAgo: 3)), to: state))
        let since = try? XCTUnwrap(state.withLock { $0.recordingSince })
        XCTAssertEqual(
            (ContinuousClock.now - (since ?? .now)) / .seconds(1), 3, accuracy: 0.5,
            "counted from the recording's start")
        XCTAssertFalse(PreviewOverlay.apply(.segmentClosed(Self.result()), to: state), "a loop recording goes on")
        XCTAssertTrue(PreviewOverlay.apply(.cameraFailed(CameraFailure(camera: "rear", reason: "gone")), to: state))
        XCTAssertNil(state.withLock { $0.camera })
        XCTAssertTrue(PreviewOverlay.apply(.recordingStopped(Self.result()), to: state))
        XCTAssertNil(state.withLock { $0.recordingSince })
    }

    /// The service on a real textoverlay element: the text appears with the recording, ticks, and goes with it.
    func testTheServiceSetsTheElementsText() async throws {
        let element = try Element.make("textoverlay")
        let events = EventHub()
        let overlay = PreviewOverlay(element: element, events: events, camera: "main")
        let task = Task { try await overlay.run() }
        defer { task.cancel() }
        events.publish(.recordingStarted(Self.started(secondsAgo: 0.5)))
        try await waitFor { element.get("text")?.contains("REC  00:00  main") == true }
        try await waitFor { element.get("text")?.contains("REC  00:01  main") == true }  // ticked
        events.publish(.cameraSwitched(CameraSwitched(from: "main", to: "A&B", latencyMs: 1)))
        try await waitFor { element.get("text")?.contains("A&amp;B") == true }
        events.publish(.recordingStopped(Self.result()))
        try await waitFor { element.get("text") == "" }
    }

    private func waitFor(_ condition: () -> Bool, file: StaticString = #filePath, line: UInt = #line) async throws {
        if await Poll.asyncUntil(timeout: 3, every: 0.02, condition) { return }
        XCTFail("condition not met within 3 s", file: file, line: line)
    }

    static func started(secondsAgo: Double) -> RecordingStarted {
        RecordingStarted(
            id: "x", title: "t", partialPath: "/tmp/x.mp4", createdAt: Date().addingTimeInterval(-secondsAgo))
    }

    static func result() -> RecordingResult {
        RecordingResult(
            id: "x", title: "t", path: "/tmp/x.mp4", thumbnail: nil, durationMs: 1000, videoFrames: 30,
            droppedFrames: 0, audioDurationMs: nil, avOffsetMs: nil, sizeBytes: 1, width: 1280, height: 720,
            framerate: 30, createdAt: Date(), endedAt: Date(), stopReason: .request,
            startLatencyMs: nil, stopLatencyMs: nil)
    }
}
