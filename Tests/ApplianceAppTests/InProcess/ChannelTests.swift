import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Settings
import XCTest

@testable import ApplianceApp

/// Channels in the running appliance: clips and activity name their channel; one `[[channel]]` table records with its
/// own size; several are refused at start with one line (recording them side by side is not built yet).
final class ChannelTests: XCTestCase {
    func testClipsAndActivityNameTheirChannel() async throws {
        let test = try await TestAppliance()
        defer { test.removeDirectory() }
        guard case .recordingStarted(let started) = try await test.perform(.recordStart(title: nil)) else {
            return XCTFail("start")
        }
        try await test.waitUntilRecorded(0.5)
        guard case .activityMarked(let mark) = try await test.perform(.activityMark(ActivityMark(label: "door")))
        else { return XCTFail("mark") }
        _ = try await test.perform(.recordStop(title: nil))
        guard case .info(let info) = try await test.perform(.info(id: started.id)) else { return XCTFail("info") }
        XCTAssertEqual(info.recording.channel, "main", "a config without [[channel]] records channel main")
        XCTAssertEqual(mark.channel, "main")
        guard case .activityDetail(let stored) = try await test.perform(.activityShow(id: mark.id)) else {
            return XCTFail("activity.show")
        }
        XCTAssertEqual(stored.activity.channel, "main", "as stored")
        try await test.stop()
    }

    func testOneChannelRecordsWithItsOwnSize() async throws {
        let test = try await TestAppliance { config in
            config.channelTables = [
                ApplianceConfig.Channel(
                    name: "road", cameras: ["main"], video: Self.video(config.video, 320, 180),
                    trigger: "manual", preRecordS: 0, postRecordS: 5, audio: false)
            ]
        }
        defer { test.removeDirectory() }
        _ = try await test.perform(.recordStart(title: nil))
        try await test.waitUntilRecorded(0.5)
        guard case .recordingStopped(let clip) = try await test.perform(.recordStop(title: nil)) else {
            return XCTFail("stop")
        }
        let media = try Discoverer.inspect(path: clip.path)
        XCTAssertEqual(media.video.first?.width, 320, "the channel's width, not [video]'s 640")
        XCTAssertEqual(media.video.first?.height, 180)
        XCTAssertEqual(media.audio.count, 0, "the channel records no sound")
        guard case .info(let info) = try await test.perform(.info(id: clip.id)) else { return XCTFail("info") }
        XCTAssertEqual(info.recording.channel, "road")
        try await test.stop()
    }

    func testSeveralChannelsAreRefusedAtStartWithOneLine() async throws {
        let directory = try TestAppliance.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var second = ApplianceConfig.Camera()
        (second.name, second.source) = ("cabin", "test")
        let config = TestAppliance.config(directory: directory) { config in
            config.cameras.append(second)
            config.channelTables = ["main", "cabin"].map { name in
                ApplianceConfig.Channel(
                    name: name == "main" ? "front" : "rear", cameras: [name], video: config.video, trigger: "manual",
                    preRecordS: 0, postRecordS: 5, audio: false)
            }
        }
        do {
            _ = try await Appliance.start(config: config, logger: TestAppliance.logger, handleSignals: false)
            XCTFail("two channels started")
        } catch let error as ApplianceError {
            XCTAssertEqual(
                error.message,
                """
                config: 2 [[channel]] tables (front, rear), but this version records one channel at a time: keep \
                one [[channel]] and switch its cameras
                """)
            XCTAssertFalse(error.message.contains("\n"))
        }
        XCTAssertFalse(
            FileManager.default.fileExists(atPath: config.dataDir + "/appliance.sqlite"),
            "refused before the data folder is opened")
    }

    private static func video(_ video: ApplianceConfig.Video, _ width: Int, _ height: Int) -> ApplianceConfig.Video {
        var sized = video
        (sized.width, sized.height) = (width, height)
        return sized
    }
}
