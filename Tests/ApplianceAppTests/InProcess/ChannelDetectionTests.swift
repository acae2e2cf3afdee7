import ApplianceBase
import ApplianceProtocol
import Foundation
import Settings
import XCTest

@testable import ApplianceApp

/// Each channel watches its own picture: two channels with motion on and `trigger = "motion"` each, the front's
/// picture still (SMPTE bars) and the rear's a moving ball. The rear's motion is its own event (`channel` rear), its
/// activity (named by its channel, its picture its own) and its recording; the front records nothing.
final class ChannelDetectionTests: XCTestCase {
    func testAChannelsMotionStartsItsOwnRecordingAlone() async throws {
        let test = try await TestAppliance { config in
            config.motion.enabled = true
            config.addFrontAndRearChannels()
            for n in config.channelTables.indices { config.channelTables[n].trigger = "motion" }
        }
        defer { test.removeDirectory() }
        let motion = await test.events.first(within: .seconds(30)) { event -> MotionEvent? in
            if case .motionStarted(let m) = event { m } else { nil }
        }
        XCTAssertEqual(motion?.channel, "rear", "the moving picture is the rear's")
        XCTAssertEqual(motion?.camera, "cabin")
        let started = await test.events.first(within: .seconds(10)) { event -> RecordingStarted? in
            if case .recordingStarted(let s) = event { s } else { nil }
        }
        XCTAssertEqual(started?.channel, "rear", "its trigger started its recording")
        var channels: [ChannelStatus] = []
        for _ in 0..<50 where channels.map(\.state) != [.idle, .recording] {
            if case .status(let status) = try await test.perform(.status) { channels = status.channels }
            try await Task.sleep(for: .milliseconds(100))
        }
        XCTAssertEqual(channels.map(\.state), [.idle, .recording], "the front records nothing")
        XCTAssertEqual(channels.map { $0.motion?.events }, [0, 1], "each channel's own detector, in its status")
        XCTAssertGreaterThan(channels.first?.motion?.framesAnalysed ?? 0, 0, "the front's looks at its picture")
        guard case .activity(let list) = try await test.perform(.activity(ActivityFilter(kinds: [.motion]))) else {
            return XCTFail("activity")
        }
        XCTAssertEqual(list.items.map(\.channel), ["rear"], "one motion activity, the rear's")
        guard case .activity(let front) = try await test.perform(.activity(ActivityFilter(channel: "front"))) else {
            return XCTFail("activity")
        }
        XCTAssertEqual(front.items.count, 0, "none in the front's picture")
        // Its picture, taken as the motion began, is the rear's (its own file name: two channels may start together).
        let pictures = try FileManager.default.contentsOfDirectory(atPath: test.appliance.data.activityDir)
        XCTAssertEqual(pictures.filter { $0.hasPrefix("motion") }.map { $0.prefix(11) }, ["motion@rear"], "\(pictures)")
        try await test.stop()
    }
}
