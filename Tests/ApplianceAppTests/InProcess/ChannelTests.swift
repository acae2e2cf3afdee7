import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit
import Settings
import XCTest

@testable import ApplianceApp

/// Channels in the running appliance: clips and activity name their channel; one `[[channel]]` table records with its
/// own size; two record side by side, each to its own clips.
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

    func testTwoChannelsRecordSideBySideEachToItsOwnClips() async throws {
        let test = try await TestAppliance { config in
            config.addFrontAndRearChannels(rearVideo: Self.video(config.video, 320, 180))
        }
        defer { test.removeDirectory() }
        let events = EventReader(test.appliance)
        guard case .recordingStarted(let front) = try await test.perform(.recordStart(title: "both")) else {
            return XCTFail("start")
        }
        let rear = await events.first { event -> RecordingStarted? in
            if case .recordingStarted(let started) = event, started.id != front.id { started } else { nil }
        }
        XCTAssertNotNil(rear, "the second channel started too")
        XCTAssertEqual([front.channel, rear?.channel], ["front", "rear"], "each start names its channel")
        try await test.waitUntilRecorded(1.0)
        _ = try await test.perform(.activityMark(ActivityMark(label: "gate")))
        guard case .status(let recording) = try await test.perform(.status) else { return XCTFail("status") }
        XCTAssertEqual(recording.channels.map(\.state), [.recording, .recording])
        XCTAssertEqual(recording.channels.map(\.recordingId), [front.id, rear?.id])
        guard case .recordingStopped(let frontClip) = try await test.perform(.recordStop(title: nil)) else {
            return XCTFail("stop")
        }
        let rearClip = await events.first { event -> RecordingResult? in
            if case .recordingStopped(let stopped) = event, stopped.id == rear?.id { stopped } else { nil }
        }
        let rearFile = try XCTUnwrap(rearClip, "the second channel's clip was finished").path
        XCTAssertEqual([frontClip.channel, rearClip?.channel], ["front", "rear"], "each stop names its channel")
        let (frontMedia, rearMedia) = (
            try Discoverer.inspect(path: frontClip.path), try Discoverer.inspect(path: rearFile)
        )
        XCTAssertEqual(frontMedia.video.first?.width, 640)
        XCTAssertEqual(frontMedia.audio.count, 1, "the first channel records the sound")
        XCTAssertEqual(rearMedia.video.first?.width, 320, "each channel at its own size")
        XCTAssertEqual(rearMedia.audio.count, 0)
        XCTAssertGreaterThan(rearClip?.videoFrames ?? 0, 15, "the second channel recorded while the first did")
        guard case .list(let list) = try await test.perform(.list(page: 1, perPage: 10)) else { return XCTFail("list") }
        XCTAssertEqual(Set(list.items.map(\.channel)), ["front", "rear"])
        XCTAssertEqual(list.items.count, 2)
        XCTAssertEqual(list.items.first { $0.channel == "rear" }?.camera, "cabin", "the rear channel's own camera")
        XCTAssertEqual(list.items.first { $0.channel == "front" }?.camera, "main")
        for channel in ["front", "rear"] {
            guard
                case .list(let one) = try await test.perform(
                    .listFiltered(ListFilter(channel: channel), page: 1, perPage: 10))
            else { return XCTFail("list --channel") }
            XCTAssertEqual(one.items.map(\.channel), [channel])
        }
        let (from, to) = (Date().addingTimeInterval(-600), Date().addingTimeInterval(60))
        for (channel, id) in [("front", front.id), ("rear", rear?.id)] {
            guard
                case .timeline(let t) = try await test.perform(.timeline(from: from, to: to, channel: channel)),
                case .activity(let marks) = try await test.perform(.activity(ActivityFilter(channel: channel)))
            else { return XCTFail("timeline, activity --channel \(channel)") }
            XCTAssertEqual(t.spans.map(\.firstId), [id].compactMap { $0 }, "\(channel)'s timeline: its clip alone")
            XCTAssertEqual(t.events.map(\.label), channel == "front" ? ["gate"] : [], "\(channel)'s events")
            XCTAssertEqual(marks.items.map(\.label), channel == "front" ? ["gate"] : [], "\(channel)'s activity")
        }
        guard case .timeline(let all) = try await test.perform(.timeline(from: from, to: to)) else {
            return XCTFail("timeline")
        }
        XCTAssertEqual(all.events.count, 1, "every channel's")
        // A span each, in the order of their first frames (which channel's came first varies by milliseconds).
        let byChannel = all.spans.sorted { ($0.channel ?? "") < ($1.channel ?? "") }
        XCTAssertEqual(byChannel.map(\.channel), ["front", "rear"], "a span each, side by side: \(all.spans)")
        XCTAssertEqual(byChannel.map(\.firstId), [front.id, rear?.id].compactMap { $0 })
        XCTAssertEqual(all.spans.map(\.start), all.spans.map(\.start).sorted(), "in time order")
        guard case .status(let status) = try await test.perform(.status) else { return XCTFail("status") }
        XCTAssertEqual(status.state, .idle)
        XCTAssertEqual(status.channels.map(\.name), ["front", "rear"])
        XCTAssertEqual(status.channels.map(\.state), [.idle, .idle])
        XCTAssertEqual(status.channels.map(\.activeCamera), ["main", "cabin"])
        XCTAssertEqual(status.channels.map(\.width), [640, 320])
        guard case .cameras(let cameras) = try await test.perform(.cameras) else { return XCTFail("cameras") }
        XCTAssertEqual(cameras.cameras.map(\.name), ["main", "cabin"], "every channel's cameras")
        XCTAssertEqual(cameras.cameras.map(\.channel), ["front", "rear"])
        XCTAssertEqual(cameras.cameras.map(\.state), ["active", "active"])
        let again = await test.refusal(.recordStop(title: nil))
        XCTAssertEqual(again?.code, .conflict, "stopped everywhere")

        // One channel alone: the others stay as they are.
        guard case .recordingStarted(let alone) = try await test.perform(.recordStart(title: nil, channel: "rear"))
        else { return XCTFail("start rear") }
        guard case .status(let one) = try await test.perform(.status) else { return XCTFail("status") }
        XCTAssertEqual(one.channels.map(\.state), [.idle, .recording])
        XCTAssertEqual(one.channels[1].recordingId, alone.id)
        let frontIdle = await test.refusal(.recordStop(title: nil, channel: "front"))
        XCTAssertEqual(frontIdle?.code, .conflict)
        guard case .recordingStopped(let rearAlone) = try await test.perform(.recordStop(title: nil, channel: "rear"))
        else { return XCTFail("stop rear") }
        XCTAssertEqual(rearAlone.id, alone.id)
        let unknown = await test.refusal(.recordStart(title: nil, channel: "garden"))
        XCTAssertEqual(unknown?.code, .notFound)
        XCTAssertEqual(unknown?.message, "no channel named \"garden\" (channels: front, rear)")
        try await test.stop()
    }

    /// An export joins one channel's clips: a range that holds both channels' (pictures of two sizes) is refused
    /// naming them, `channel` picks one, and a channel that is not there is not_found naming those that are.
    func testAnExportJoinsOneChannelsClips() async throws {
        let test = try await TestAppliance { config in
            config.addFrontAndRearChannels(rearVideo: Self.video(config.video, 320, 180))
        }
        defer { test.removeDirectory() }
        let events = EventReader(test.appliance)
        let from = Date().addingTimeInterval(-1)
        _ = try await test.perform(.recordStart(title: nil))
        try await test.waitUntilRecorded(0.5)
        _ = try await test.perform(.recordStop(title: nil))
        let rearStopped = await events.first { event -> RecordingResult? in
            if case .recordingStopped(let stopped) = event, stopped.channel == "rear" { stopped } else { nil }
        }
        XCTAssertNotNil(rearStopped, "the rear channel's clip was finished")
        let range = ExportRequest(from: from, to: Date().addingTimeInterval(1))
        let both = await test.refusal(.export(range))
        XCTAssertEqual(both?.code, .badRequest)
        XCTAssertEqual(
            both?.message.hasPrefix("the range holds clips of channels front, rear, which cannot be joined"), true,
            both?.message ?? "")
        var rearOnly = range
        rearOnly.channel = "rear"
        guard case .exported(let export) = try await test.perform(.export(rearOnly)) else {
            return XCTFail("export --channel rear")
        }
        XCTAssertEqual(export.sources, [rearStopped?.id].compactMap { $0 })
        XCTAssertEqual(export.recording.channel, "rear")
        XCTAssertEqual(try Discoverer.inspect(path: export.recording.path).video.first?.width, 320)
        var garden = range
        garden.channel = "garden"
        let unknown = await test.refusal(.export(garden))
        XCTAssertEqual(unknown?.code, .notFound)
        XCTAssertEqual(unknown?.message, "no channel named \"garden\" (channels: front, rear)")
        try await test.stop()
    }

    /// `switch NAME` switches inside the channel that has the camera, here the second: the first goes on as it was.
    /// `switch --next --channel rear` goes on to that channel's next camera; `--next` alone is the first channel's
    /// (which has no other), and a channel that is not there is not_found naming those that are.
    func testASwitchByNameActsInTheChannelThatHasTheCamera() async throws {
        var cabin = ApplianceConfig.Camera()
        (cabin.name, cabin.source, cabin.pattern) = ("cabin", "test", "ball")
        var trunk = ApplianceConfig.Camera()
        (trunk.name, trunk.source, trunk.pattern) = ("trunk", "test", "snow")
        let test = try await TestAppliance { config in
            config.cameras += [cabin, trunk]
            config.channelTables = [
                ApplianceConfig.Channel(
                    name: "front", cameras: ["main"], video: config.video, trigger: "manual",
                    preRecordS: 0, postRecordS: 5, audio: true),
                ApplianceConfig.Channel(
                    name: "rear", cameras: ["cabin", "trunk"], video: config.video, trigger: "manual", preRecordS: 0,
                    postRecordS: 5, audio: false),
            ]
        }
        defer { test.removeDirectory() }
        _ = try await test.perform(.recordStart(title: nil))
        try await test.waitUntilRecorded(1.0)
        guard case .switched(let switched) = try await test.perform(.switchCamera(.named("trunk"))) else {
            return XCTFail("switch")
        }
        XCTAssertEqual(switched.active, "trunk")
        XCTAssertEqual(switched.previous, "cabin")
        try await test.waitUntilRecorded(2.0)
        guard case .switched(let back) = try await test.perform(.switchCamera(.next(channel: "rear"))) else {
            return XCTFail("switch --next --channel rear")
        }
        XCTAssertEqual([back.previous, back.active], ["trunk", "cabin"])
        let alone = await test.refusal(.switchCamera(.next(channel: nil)))
        XCTAssertEqual(alone?.code, .unavailable, "the first channel has one camera: \(String(describing: alone))")
        let unknown = await test.refusal(.switchCamera(.next(channel: "boot")))
        XCTAssertEqual(unknown?.code, .notFound)
        XCTAssertTrue(unknown?.message.contains("channels: front, rear") == true, "\(String(describing: unknown))")
        try await test.waitUntilRecorded(3.0)
        _ = try await test.perform(.recordStop(title: nil))
        guard case .list(let list) = try await test.perform(.list(page: 1, perPage: 10)) else { return XCTFail("list") }
        XCTAssertEqual(list.items.first { $0.channel == "rear" }?.camera, "cabin,trunk", "the rear channel switched")
        XCTAssertEqual(list.items.first { $0.channel == "front" }?.camera, "main", "the front did not")
        try await test.stop()
    }

    /// A switch inside the first channel while the second records: both clips go on without a gap.
    func testSwitchingInsideOneChannelLeavesTheOtherRecording() async throws {
        var spare = ApplianceConfig.Camera()
        (spare.name, spare.source, spare.pattern) = ("spare", "test", "snow")
        var cabin = ApplianceConfig.Camera()
        (cabin.name, cabin.source, cabin.pattern) = ("cabin", "test", "ball")
        let test = try await TestAppliance { config in
            config.cameras += [spare, cabin]
            config.channelTables = [
                ApplianceConfig.Channel(
                    name: "front", cameras: ["main", "spare"], video: config.video, trigger: "manual",
                    preRecordS: 0, postRecordS: 5, audio: true),
                ApplianceConfig.Channel(
                    name: "rear", cameras: ["cabin"], video: config.video, trigger: "manual", preRecordS: 0,
                    postRecordS: 5, audio: false),
            ]
        }
        defer { test.removeDirectory() }
        let events = EventReader(test.appliance)
        _ = try await test.perform(.recordStart(title: nil))
        try await test.waitUntilRecorded(1.0)
        guard case .switched = try await test.perform(.switchCamera(.named("spare"))) else {
            return XCTFail("switch")
        }
        try await test.waitUntilRecorded(2.0)
        _ = try await test.perform(.recordStop(title: nil))
        guard case .list(let list) = try await test.perform(.list(page: 1, perPage: 10)) else { return XCTFail("list") }
        let front = try XCTUnwrap(list.items.first { $0.channel == "front" })
        let rear = try XCTUnwrap(list.items.first { $0.channel == "rear" })
        XCTAssertEqual(front.camera, "main,spare", "the first channel switched")
        XCTAssertEqual(rear.camera, "cabin", "the second did not")
        for clip in [front, rear] {
            let stopped = await events.first { event -> RecordingResult? in
                if case .recordingStopped(let r) = event, r.id == clip.id { r } else { nil }
            }
            let result = try XCTUnwrap(stopped, "\(clip.channel ?? "?") stopped")
            // 30 fps: no gap means a frame for every 33 ms of the clip, give or take a frame at each end.
            XCTAssertEqual(result.droppedFrames, 0, "\(clip.channel ?? "?"): no frame missing at the encoder")
            XCTAssertEqual(
                Double(result.videoFrames), Double(result.durationMs) * 30 / 1000, accuracy: 3,
                "\(clip.channel ?? "?"): no gap")
        }
        try await test.stop()
    }

    /// `protect` reaches every channel: the clip each one is writing, and each one's segments that begin inside the
    /// window (before, only the first channel's recorder was told, and the second channel's next segment was left
    /// unlocked). A rename of the second channel's clip in progress is kept through its stop.
    func testProtectAndRenameReachEveryChannel() async throws {
        let test = try await TestAppliance { config in
            config.addFrontAndRearChannels()
            config.recording.segmentS = 2
        }
        defer { test.removeDirectory() }
        let events = EventReader(test.appliance)
        _ = try await test.perform(.recordStart(title: nil))
        let rear = await events.first { event -> RecordingStarted? in
            if case .recordingStarted(let started) = event, started.channel == "rear" { started } else { nil }
        }
        let rearID = try XCTUnwrap(rear?.id, "the second channel started")
        guard case .recording = try await test.perform(.rename(id: rearID, title: "cabin view")) else {
            return XCTFail("rename")
        }
        guard case .protected(let protected) = try await test.perform(.protect(before: 0, after: 2.5)) else {
            return XCTFail("protect")
        }
        XCTAssertNotNil(protected.pendingUntil, "segments still to come are locked as they begin")
        XCTAssertTrue(protected.locked.contains(rearID), "the second channel's clip in progress: \(protected.locked)")
        // Past the window: every channel's third segment has begun, after it.
        let list = try await stopAfterEachChannelsSecondSegment(test, events)
        for channel in ["front", "rear"] {
            let clips = list.items.filter { $0.channel == channel }.sorted { ($0.segment ?? 0) < ($1.segment ?? 0) }
            let inWindow = clips.filter { $0.createdAt <= protected.to }
            XCTAssertGreaterThanOrEqual(inWindow.count, 2, "\(channel): the segment written and the next")
            XCTAssertEqual(inWindow.filter { !$0.locked }.map(\.segment), [], "\(channel): unlocked in the window")
            XCTAssertEqual(
                clips.filter { $0.createdAt > protected.to }.filter(\.locked).map(\.segment), [],
                "\(channel): locked after the window")
        }
        XCTAssertEqual(list.items.first { $0.id == rearID }?.title, "cabin view", "the rename outlived the stop")
        try await test.stop()
    }

    /// A range video is one channel's picture, the first's unless it names another: the two channels' loop
    /// segments, made in turn, are one range of files, and the second channel's first segment (another size) ended
    /// the video after the first channel's first segment.
    func testARangeVideoIsOneChannelsPicture() async throws {
        let test = try await TestAppliance { config in
            config.addFrontAndRearChannels(rearVideo: Self.video(config.video, 320, 180))
            config.recording.segmentS = 2
        }
        defer { test.removeDirectory() }
        let events = EventReader(test.appliance)
        let from = Date().addingTimeInterval(-1)
        _ = try await test.perform(.recordStart(title: nil))
        let list = try await stopAfterEachChannelsSecondSegment(test, events)
        let catalog = MediaCatalog(
            library: test.appliance.dispatcher.clips.library, data: test.appliance.data, longestFileS: 70,
            channels: ["front", "rear"])
        for (channel, asked) in [("front", nil), ("rear", "rear")] {
            let own = Set(list.items.filter { $0.channel == channel }.map(\.id))
            let video = try await catalog.rangeVideo(from: from, to: Date(), channel: asked)
            XCTAssertGreaterThanOrEqual(video.pieces.count, 3, "\(channel)'s segments, one after another")
            XCTAssertEqual(
                video.pieces.filter { !own.contains($0.recordingId) }.map(\.recordingId), [],
                "another channel's files in \(channel)'s video")
        }
        try await test.stop()
    }

    /// Waits until both channels (front, rear) have closed their second loop segment, stops, and lists every clip.
    private func stopAfterEachChannelsSecondSegment(_ test: TestAppliance, _ events: EventReader) async throws
        -> ListResult
    {
        for channel in ["front", "rear"] {
            let closed = await events.first { event -> RecordingResult? in
                if case .segmentClosed(let r) = event, r.channel == channel, r.segment == 2 { r } else { nil }
            }
            XCTAssertNotNil(closed, "\(channel): its second segment closed")
        }
        _ = try await test.perform(.recordStop(title: nil))
        let listed = try await test.perform(.list(page: 1, perPage: 100))
        guard case .list(let list) = listed else { return try XCTUnwrap(nil, "list: \(listed)") }
        return list
    }

    private static func video(_ video: ApplianceConfig.Video, _ width: Int, _ height: Int) -> ApplianceConfig.Video {
        var sized = video
        (sized.width, sized.height) = (width, height)
        return sized
    }
}
