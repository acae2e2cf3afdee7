import ApplianceBase
import ApplianceProtocol
import Engine
import Foundation
import GStreamerKit
import TestSupport
import XCTest

@testable import ApplianceApp

/// A recording that has been cut keeps its bin linked until it is detached: nothing that still flows there may
/// reach the camera as an end of stream.
final class CutTests: XCTestCase {
    func testAnEventAfterTheCutDoesNotEndTheCamera() async throws {
        let test = try await TestAppliance()
        defer { test.removeDirectory() }
        let events = EventReader(test.appliance)
        let graph = test.appliance.graph
        let session = try RecordingSession(
            id: "cut-test", partialPath: test.appliance.data.partialPath(id: "cut-test"), graph: graph)
        let recorded = await Poll.asyncUntil(timeout: 20) { session.timing.durationMs >= 500 }
        XCTAssertTrue(recorded, "0.5 s of video in the session")
        session.requestStop(at: graph.runningTimeNow)
        let finalised = await session.finalised.wait(timeout: .seconds(5))
        XCTAssertEqual(finalised, true)
        // The bin has had its EOS and is still linked (as during the tick before a max-duration stop): a parser's
        // tag event goes by, then the next frames.
        XCTAssertTrue(graph.parser.staticPad("src")!.push(.emptyTags()))
        // the next frames go by
        try await test.waitForFrames(seconds: 0.5, since: try await test.status().output.frames)
        try await blocking { session.teardown() }

        let failure = await events.first(within: .seconds(1)) { if case .cameraFailed(let f) = $0 { f } else { nil } }
        XCTAssertNil(failure, "the camera's stream must not end")
        guard case .cameras(let cameras) = try await test.perform(.cameras) else { return XCTFail("cameras") }
        XCTAssertEqual(cameras.cameras.first?.state, "active")
        _ = try await test.perform(.recordStart(title: nil))
        try await test.waitUntilRecorded(0.5)
        guard case .recordingStopped(let next) = try await test.perform(.recordStop(title: nil)) else {
            return XCTFail("stop")
        }
        XCTAssertGreaterThan(next.videoFrames, 5, "the next recording gets frames")
        try await test.stop()
    }
}
