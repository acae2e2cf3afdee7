import ApplianceBase
import ApplianceProtocol
import ButtonsAndLights
import Encoders
import Engine
import Foundation
import FrontEndInterface
import GStreamerKit
import MQTTIntegration
import MediaLibrary
import ONVIF
import Settings
import Supervision

/// Builds `status` from what each domain owns: the recorder's phase, the cameras, the output clock, the library,
/// health and readiness. Owns nothing itself.
struct StatusReporter: Sendable {
    let config: ApplianceConfig
    let data: DataDirectory
    let library: Library
    let graph: CaptureGraph
    let health: Health
    let recorder: Recorder, cameras: CameraSwitcher
    let readiness: Readiness
    /// When the daemon started, by the monotonic clock (uptime: a wall clock set back would make it negative).
    let started: ContinuousClock.Instant
    /// What the `[[output]]` lights show (nil: none configured).
    var outputs: OutputBoard? = nil
    /// Whether each `[[input]]` is connected (nil: none configured).
    var inputs: InputBoard? = nil
    var web: FrontEndReporter? = nil
    var rtsp: RTSPFeed? = nil
    var mqtt: MQTTLink? = nil
    var onvif: ONVIFLink? = nil
    var encoders: EncoderSelection? = nil
    var clock: ClockWatch? = nil
    var speaker: Speaker? = nil
    /// The channels recorded beside the first (`status.channels` after the first's).
    var otherChannels: @Sendable () async -> [ChannelStatus] = { [] }

    func status() async -> StatusReport {
        let (state, live, recordingsThisRun) = await recorder.live()
        let activeCamera = await cameras.activeName
        let (graph, library, health, v) = (graph, library, health, config.video)
        let flow = graph.flow.snapshot
        var report = StatusReport(
            state: state, ready: readiness.isReady, recording: live, cameras: graph.cameraNames,
            activeCamera: activeCamera ?? "", cameraSources: graph.cameraKinds, audioSource: graph.audioKind,
            preview: graph.previewKind,
            encoder: graph.storesAsSent ? CaptureGraph.asSentEncoder : encoders?.current.encoder ?? v.encoder,
            width: v.width,
            height: v.height, framerate: v.framerate,
            dataDir: data.root, uptimeS: (ContinuousClock.now - started).seconds, recordingsThisRun: recordingsThisRun,
            lastError: health.lastError, gstreamerVersion: GStreamer.version, recordingsTotal: library.count,
            databaseBytes: library.sizeBytes, recovery: health.recovery,
            output: OutputStats(
                frames: flow.outputFrames, slotCollisions: flow.slotCollisions, filledSlots: flow.filledSlots,
                missingSlots: flow.missingSlots, missingAtEncoder: flow.encoderMissing),
            storage: health.storage)
        (report.capacity, report.storageFull) = (health.capacity, health.storageFull)
        let modes = graph.cameraModes
        report.cameraModes = modes.isEmpty ? nil : modes
        report.outputs = outputs?.current
        report.inputs = inputs?.statuses
        report.web = web?.current
        report.rtsp = rtsp?.status
        report.mqtt = mqtt?.status
        report.onvif = onvif?.status
        report.encoderChoice = encoders?.current
        report.motion = graph.motion?.status
        report.objects = graph.objects?.status
        report.sound = graph.sound?.status
        report.clock = clock?.status
        report.speaker = await speaker?.status()
        var first = ChannelStatus(
            name: config.channels.first?.name ?? ApplianceConfig.defaultChannelName, state: state,
            recordingId: live?.id, cameras: report.cameras, activeCamera: report.activeCamera, encoder: report.encoder,
            width: v.width, height: v.height, framerate: v.framerate)
        let others = await otherChannels()
        if !others.isEmpty { (first.motion, first.objects) = (report.motion, report.objects) }
        report.channels = await Self.withStorage([first] + others, library: library)
        return report
    }

    /// With several channels, each says what it keeps (retention's rules hold across channels: this is its share).
    static func withStorage(_ channels: [ChannelStatus], library: Library) async -> [ChannelStatus] {
        guard channels.count > 1, let first = channels.first?.name,
            let usage = try? await library.channelUsage(first: first)
        else { return channels }
        return channels.map { channel in
            var channel = channel
            let kept = usage[channel.name]
            (channel.clips, channel.storedBytes, channel.oldestAt) = (kept?.clips ?? 0, kept?.bytes ?? 0, kept?.oldest)
            return channel
        }
    }
}
