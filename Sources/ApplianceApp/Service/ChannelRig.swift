import ApplianceBase
import ApplianceProtocol
import Encoders
import Engine
import Foundation
import Logging
import MediaLibrary
import ServiceLifecycle
import Settings

/// A channel recorded beside the first (`[[channel]]`): its own live graph, cameras and recorder, each clip and
/// loop segment its own row with its channel's name, and its own live picture, encoded streams (RTSP's
/// `/live/NAME`) and WebRTC viewers (the live page's grid). The record commands and autostart act on every channel;
/// its own motion and object detection, activity and trigger (`detectionServices`) on its picture; snapshots,
/// `switch NAME` and the device watch reach every channel.
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
    /// Its encoder and what has happened to it (its own failover); nil for a stream stored as sent.
    let encoders: EncoderSelection?

    private init(
        config: ApplianceConfig, graph: CaptureGraph, cameras: CameraSwitcher, recorder: Recorder,
        encoders: EncoderSelection?, logger: Logger
    ) {
        (self.name, self.config, self.encoders) = (config.channels.first?.name ?? "", config, encoders)
        (self.graph, self.cameras, self.recorder) = (graph, cameras, recorder)
        feed = LiveFeed(graph: graph)
        webrtc = WebRTCViewers(feed: feed, web: config.web, logger: logger)
    }

    /// Its live picture and WebRTC sessions, as the web's live grid takes them.
    var liveChannel: LiveChannels.Channel { .init(name: name, live: graph.live, webrtc: webrtc) }

    /// Builds and starts the channel's graph with its first camera. A channel whose encoder is `auto` takes the
    /// encoder the first channel's trial chose (`firstEncoder`): one trial per boot, not one per channel.
    static func start(
        _ view: ApplianceConfig, firstEncoder: EncoderSelection, data: DataDirectory, library: Library,
        events: EventHub, health: Health, archive: (any RecordingArchive)?, sharedSound: SharedSound, logger: Logger
    ) async throws -> ChannelRig {
        let name = view.channels.first?.name ?? ""
        var logger = logger
        logger[metadataKey: "channel"] = "\(name)"
        let graph: CaptureGraph
        let encoders: EncoderSelection
        var config = view
        do {
            let fragments = try FragmentLibrary.locate(configured: config.pipelinesDir)
            encoders = try await selection(view, firstEncoder: firstEncoder, fragments: fragments, logger: logger)
            config.video.encoder = encoders.current.encoder
            graph = try CaptureGraph(config: config, fragments: fragments, sharedSound: sharedSound, logger: logger)
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
        return ChannelRig(
            config: config, graph: graph, cameras: cameras, recorder: recorder,
            encoders: graph.encoderChain == nil ? nil : encoders, logger: logger)
    }

    /// The channel's encoder: `auto` is the first channel's choice, a pinned one is its own. Its selector tries
    /// replacements at the channel's size and keeps no cache (a restart follows the first channel's choice again).
    private static func selection(
        _ view: ApplianceConfig, firstEncoder: EncoderSelection, fragments: FragmentLibrary, logger: Logger
    ) async throws -> EncoderSelection {
        let selector = EncoderSelector(
            video: view.video, library: fragments, runner: firstEncoder.selector.runner, cache: nil, logger: logger)
        let auto = view.video.encoder == ApplianceConfig.Video.autoEncoder
        return EncoderSelection(selector: selector, choice: auto ? firstEncoder.current : try await selector.choose())
    }

    /// Its services, each in the stage the first channel's counterpart runs in: the camera switcher, the graph's
    /// watcher, the encoder's failover and the recorder (which finalises its recording at shutdown).
    func services(events: EventHub, health: Health, logger: Logger, stallAfter: Duration)
        -> [(ServiceStage, any Service)]
    {
        var logger = logger
        logger[metadataKey: "channel"] = "\(name)"
        var failover: [(ServiceStage, any Service)] = []
        if let encoders, let chain = graph.encoderChain {
            var service = EncoderFailover(
                selection: encoders, graph: graph, chain: chain, recorder: recorder, events: events, logger: logger,
                stallAfter: stallAfter)
            service.channel = name
            failover.append((.encoderFailover, service))
        }
        return failover + [
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
        var status = ChannelStatus(
            name: name, state: state, recordingId: live?.id, cameras: graph.cameraNames,
            activeCamera: await cameras.activeName ?? "",
            encoder: graph.storesAsSent ? CaptureGraph.asSentEncoder : encoders?.current.encoder ?? v.encoder,
            width: v.width, height: v.height,
            framerate: v.framerate)
        (status.motion, status.objects) = (graph.motion?.status, graph.objects?.status)
        return status
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
