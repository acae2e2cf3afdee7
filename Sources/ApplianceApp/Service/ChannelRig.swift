import ApplianceBase
import ApplianceProtocol
import Engine
import Foundation
import Logging
import MediaLibrary
import ServiceLifecycle
import Settings

/// A channel recorded beside the first (`[[channel]]`): its own live graph, cameras and recorder, each clip and
/// loop segment its own row with its channel's name, and its own live picture, encoded streams (RTSP's
/// `/live/NAME`) and WebRTC viewers (the live page's grid). The record commands and autostart act on every channel;
/// detection follows the first channel for now; snapshots, `switch NAME` and the device watch reach every channel.
final class ChannelRig: Sendable {
    let name: String
    /// The channel's view of the config (`ApplianceConfig.forChannel`), its encoder resolved.
    let config: ApplianceConfig
    let graph: CaptureGraph
    let cameras: CameraSwitcher
    let recorder: Recorder
    /// Its encoded streams, for RTSP and WebRTC viewers.
    let feed: LiveFeed
    /// Its WebRTC viewers (`[web] webrtc_viewers` each; Talk is the first channel's).
    let webrtc: WebRTCViewers

    private init(
        config: ApplianceConfig, graph: CaptureGraph, cameras: CameraSwitcher, recorder: Recorder, logger: Logger
    ) {
        (self.name, self.config) = (config.channels.first?.name ?? "", config)
        (self.graph, self.cameras, self.recorder) = (graph, cameras, recorder)
        feed = LiveFeed(graph: graph)
        webrtc = WebRTCViewers(feed: feed, web: config.web, logger: logger)
    }

    /// Its live picture and WebRTC sessions, as the web's live grid takes them.
    var liveChannel: LiveChannels.Channel { .init(name: name, live: graph.live, webrtc: webrtc) }

    /// Builds and starts the channel's graph with its first camera. A channel whose encoder is `auto` takes the
    /// encoder the first channel's trial chose (`chosenEncoder`): one trial per boot, not one per channel.
    static func start(
        _ view: ApplianceConfig, chosenEncoder: String, data: DataDirectory, library: Library, events: EventHub,
        health: Health, archive: (any RecordingArchive)?, logger: Logger
    ) async throws -> ChannelRig {
        var config = view
        if config.video.encoder == ApplianceConfig.Video.autoEncoder { config.video.encoder = chosenEncoder }
        let name = config.channels.first?.name ?? ""
        var logger = logger
        logger[metadataKey: "channel"] = "\(name)"
        let graph: CaptureGraph
        do {
            graph = try CaptureGraph(
                config: config, fragments: try FragmentLibrary.locate(configured: config.pipelinesDir), logger: logger)
            try await blocking { try graph.start() }
        } catch {
            throw Appliance.StartupError(description: "channel \(name): cannot start its capture graph: \(error)")
        }
        let cameras = CameraSwitcher(graph: graph, events: events, logger: logger)
        await cameras.startInitial()
        let recorder = Recorder(
            config: config, data: data, library: library, graph: graph, events: events, health: health,
            logger: logger, cameras: cameras, archive: archive)
        logger.info(
            "channel running",
            metadata: [
                "cameras": "\(graph.cameraNames.joined(separator: ","))", "encoder": "\(config.video.encoder)",
                "size": "\(config.video.width)x\(config.video.height)@\(config.video.framerate)",
            ])
        return ChannelRig(config: config, graph: graph, cameras: cameras, recorder: recorder, logger: logger)
    }

    /// Its services, each in the stage the first channel's counterpart runs in: the camera switcher, the graph's
    /// watcher and the recorder (which finalises its recording at shutdown).
    func services(events: EventHub, health: Health, logger: Logger) -> [(ServiceStage, any Service)] {
        var logger = logger
        logger[metadataKey: "channel"] = "\(name)"
        return [
            (.cameras, cameras),
            (
                .graphWatch,
                GraphWatcher(
                    graph: graph, events: events, health: health, logger: logger, cameras: cameras, recorder: recorder)
            ),
            (.recorder, RecorderService(recorder: recorder, autostart: config.recording.autostart, logger: logger)),
        ]
    }

    /// Its line in `status.channels`.
    func status() async -> ChannelStatus {
        let (state, live, _) = await recorder.live()
        let v = config.video
        return ChannelStatus(
            name: name, state: state, recordingId: live?.id, cameras: graph.cameraNames,
            activeCamera: await cameras.activeName ?? "",
            encoder: graph.storesAsSent ? CaptureGraph.asSentEncoder : v.encoder, width: v.width, height: v.height,
            framerate: v.framerate)
    }

    /// The lines of several channels in `status.channels`, in order.
    static func statuses(_ rigs: [ChannelRig]) async -> [ChannelStatus] {
        var statuses: [ChannelStatus] = []
        for rig in rigs { statuses.append(await rig.status()) }
        return statuses
    }

    /// Ends its viewers and stops the graph (its recordings are finalised by then).
    func stop() {
        webrtc.endAll()
        graph.live.finishAll()
        graph.stop()
    }
}
