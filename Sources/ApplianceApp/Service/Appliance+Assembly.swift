import Accounts
import ApplianceBase
import ApplianceProtocol
import Backup
import ButtonsAndLights
import ControlSocket
import Encoders
import Engine
import Foundation
import FrontEndInterface
import GStreamerKit
import Logging
import MediaLibrary
import ServiceLifecycle
import Settings
import Supervision

/// What `Appliance.start` has built before the appliance's domains: the data folder and its library, the events,
/// the clock, the running graph with its cameras, start-up recovery's outcome, health, the backup and readiness.
struct Groundwork {
    let config: ApplianceConfig
    let data: DataDirectory
    let library: Library
    let runs: DaemonRuns
    let events: EventHub
    let clock: ClockWatch
    let encoders: EncoderSelection
    let graph: CaptureGraph
    let cameras: CameraSwitcher
    /// The channels recorded beside the first (`[[channel]]`), each with its graph, cameras and recorder.
    let channels: [ChannelRig]
    /// Start-up recovery's first step (partial/); the reconcile that follows runs in `StorageWatch`.
    let recovery: Recovery.Started
    let health: Health
    let backup: BackupUploader?
    let readiness: Readiness
    let started: ContinuousClock.Instant
    let logger: Logger

    /// Every channel's name, the first first (`config` is the first channel's view: it names that one alone).
    var channelNames: [String] { config.channels.map(\.name) + channels.map(\.name) }
}

/// The domains built on the groundwork, with the one entry point (`dispatcher`) every front end and timer uses.
struct ApplianceParts {
    let base: Groundwork
    let recorder: Recorder
    let retention: Retention
    let retentionWake: WakeSignal
    let devices: DeviceMonitor
    let gate: CommandGate
    let liveness: LivenessMonitor
    let inputs: InputBoard?
    let lights: OutputBoard?
    let network: NetworkOutputs
    let webrtc: WebRTCViewers
    let webReporter: FrontEndReporter
    let status: StatusReporter
    let activity: ActivityLog
    let dispatcher: CommandDispatcher
    let accounts: AccountBook
    let speaker: Speaker?
    let server: ControlServer
    let socketPath: String
}

extension Appliance {
    /// The recorder and retention, the status and metrics, clips and activity, the outputs to other machines, and
    /// the dispatcher with the control socket that serves it.
    static func assemble(_ g: Groundwork, serviceManager: ServiceManager?) async throws -> ApplianceParts {
        let (config, data, library, events, graph, logger) = (g.config, g.data, g.library, g.events, g.graph, g.logger)
        let (recorder, recorders, retention, retentionWake) = await assembleRecording(g)
        let clock = g.clock
        let liveness = LivenessMonitor(
            counters: { (graph.flow.snapshot.outputFrames, graph.busReader.heartbeat) },
            otherChannels: g.channels.map { rig in
                (rig.name, { [graph = rig.graph] in (graph.flow.snapshot.outputFrames, graph.busReader.heartbeat) })
            },
            readiness: g.readiness, events: events, logger: logger, watchdog: serviceManager?.watchdogInterval)
        let inputs =
            config.inputs.isEmpty
            ? nil : InputBoard(inputs: config.inputs, device: { InputService.device(for: $0).description })
        let lights = config.outputs.isEmpty ? nil : OutputBoard(config.outputs)
        let liveFeed = LiveFeed(graph: graph)
        let network = try await stoppingGraphOnFailure(graph) { try NetworkOutputs(g, feed: liveFeed) }
        let speaker = makeSpeaker(config: config, data: data, echo: graph.echoReference, events: events, logger: logger)
        let webrtc = WebRTCViewers(feed: liveFeed, web: config.web, speaker: speaker, logger: logger)
        let webReporter = frontEndReporter(g, webrtc: webrtc)
        let status = StatusReporter(
            config: config, data: data, library: library, graph: graph, health: g.health, recorder: recorder,
            cameras: g.cameras, readiness: g.readiness, started: g.started, outputs: lights, inputs: inputs,
            web: webReporter, rtsp: network.rtsp?.feed, mqtt: network.mqtt?.link, onvif: network.onvif?.link,
            encoders: g.encoders, clock: clock, speaker: speaker,
            otherChannels: { [channels = g.channels] in await ChannelRig.statuses(channels) })
        let clips = Clips(
            config: config, data: data, library: library, events: events, logger: logger, recorder: recorder,
            otherRecorders: g.channels.map(\.recorder), archive: g.backup, channelNames: g.channelNames)
        let cameras = g.cameras
        let activity = ActivityLog(
            clips: clips, pictures: ActivityPictures(data: data, latestFrame: { graph.latestFrame }),
            activeCamera: { await cameras.activeName })
        let (devices, gate) = (DeviceMonitor(), CommandGate())
        let accounts = try await stoppingGraphOnFailure(graph) {
            try AccountBook(
                library: library,
                tokenFile: config.web.tokenFile.isEmpty ? nil : try Password(file: config.web.tokenFile),
                keepsDigest: config.rtsp.enabled)
        }
        let dispatcher = CommandDispatcher(
            recorder: recorders, clips: clips, activity: activity, cameras: cameras,
            devices: devices, snapshots: Snapshotter(data: data, graph: graph, logger: logger), status: status,
            metrics: MetricsCollector(
                status: status, data: data, library: library, graph: graph, recorder: recorder, cameras: cameras,
                backup: g.backup, liveness: liveness, runs: g.runs, guesses: accounts.guesses, started: g.started),
            backup: g.backup, retention: retention, accounts: accounts, gate: gate,
            discovery: cameraDiscoverer(config, logger: logger), speaker: speaker)
        let socketPath = config.socket.isEmpty ? data.root + "/ctl.sock" : config.socket
        let readiness = g.readiness
        let server = ControlServer(
            path: socketPath, router: SocketRouter(perform: dispatcher.perform), events: events,
            logger: logger, onBound: { readiness.markSocketBound() })
        return ApplianceParts(
            base: g, recorder: recorder, retention: retention, retentionWake: retentionWake, devices: devices,
            gate: gate, liveness: liveness, inputs: inputs, lights: lights, network: network, webrtc: webrtc,
            webReporter: webReporter, status: status, activity: activity, dispatcher: dispatcher,
            accounts: accounts, speaker: speaker, server: server, socketPath: socketPath)
    }

    /// Where the web server reports, counting every channel's live and WebRTC viewers.
    private static func frontEndReporter(_ g: Groundwork, webrtc: WebRTCViewers) -> FrontEndReporter {
        let views = LiveChannels(
            first: .init(name: g.channelNames[0], live: g.graph.live, webrtc: webrtc),
            others: g.channels.map(\.liveChannel))
        return FrontEndReporter(
            web: g.config.web.enabled ? WebStatus(state: .starting, listen: g.config.web.listen) : nil,
            live: views, webrtc: views)
    }

    /// ONVIF discovery from the address the device's own ONVIF service announces (any, without it).
    private static func cameraDiscoverer(_ config: ApplianceConfig, logger: Logger) -> CameraDiscoverer {
        let host = config.onvif.enabled ? config.onvif.discovery(web: config.web)?.host : nil
        return CameraDiscoverer(host: host ?? "0.0.0.0", logger: logger)
    }

    /// The first channel's recorder, every channel's recorders as the record commands and retention see them, and
    /// retention, woken by each finished file and asked for room by a write failure.
    private static func assembleRecording(_ g: Groundwork) async -> (Recorder, ChannelRecorders, Retention, WakeSignal)
    {
        let (config, data, library, events, graph, logger) = (g.config, g.data, g.library, g.events, g.graph, g.logger)
        let clock = g.clock
        let recorder = Recorder(
            config: config, data: data, library: library, graph: graph, events: events, health: g.health,
            logger: logger, cameras: g.cameras, archive: g.backup)
        let recorders = ChannelRecorders(
            first: recorder, others: g.channels, logger: logger, firstName: config.channels[0].name)
        let retention = Retention(
            config: config, data: data, library: library, events: events, health: g.health, logger: logger,
            recorder: recorders, settleClock: { await clock.settle() })
        let retentionWake = WakeSignal()
        for each in [recorder] + g.channels.map(\.recorder) {
            await each.onFileFinished { retentionWake.signal() }
            await each.onWriteFailure {
                retention.wantHeadroom()
                await retention.pass()
            }
        }
        return (recorder, recorders, retention, retentionWake)
    }

    /// The speaker, when `[speaker]` resolves to one, with its chimes made in the data folder.
    private static func makeSpeaker(
        config: ApplianceConfig, data: DataDirectory, echo: EchoReference?, events: EventHub,
        logger: Logger
    ) -> Speaker? {
        guard let sink = SpeakerSink.resolve(config.speaker) else {
            logger.info("speaker: none", metadata: ["device": "\(config.speaker.device)"])
            return nil
        }
        let chimes: [SpeakerChime: String]
        do {
            chimes = try Chimes.write(to: data.chimesDir)
        } catch {
            logger.warning("speaker: cannot make the chimes in \(data.chimesDir): \(error)")
            chimes = [:]
        }
        logger.info(
            "speaker: \(sink.label)",
            metadata: [
                "volume": "\(config.speaker.volume)", "feedback": "\(config.speaker.feedback)",
                "echo_cancel": "\(echo != nil)",
            ])
        return Speaker(
            sink: sink, volume: config.speaker.volume, echo: echo, chimes: chimes, events: events, logger: logger)
    }

    /// Every service of the appliance in its stage (`ServiceStage`: the start order, which shutdown reverses).
    static func servicePlan(_ p: ApplianceParts, frontEnds: [FrontEnd], serviceManager: ServiceManager?) async throws
        -> ServicePlan
    {
        let g = p.base
        let (config, events, logger, graph, perform) = (g.config, g.events, g.logger, g.graph, p.dispatcher.perform)
        var plan = ServicePlan()
        addWatchers(to: &plan, p)
        plan.add(.cameras, g.cameras)
        plan.add(.clock, g.clock)
        plan.add(.backup, g.backup)
        plan.add(
            .picture,
            contentsOf: await pictureServices(
                graph: graph, cameras: g.cameras, config: config, events: events,
                logger: logger, activity: p.activity, channels: g.channelNames, perform: perform))
        plan.add(.retention, RetentionService(retention: p.retention, wake: p.retentionWake))
        plan.add(.speaker, p.speaker)
        plan.add(
            .recorder, RecorderService(recorder: p.recorder, autostart: config.recording.autostart, logger: logger))
        plan.add(.controlSocket, p.server)
        let onvif = p.network.onvifDevice(
            config: config, channels: g.channels.map(\.config), logger: logger, status: p.status, accounts: p.accounts)
        let context = FrontEndContext(
            config: config, perform: perform, events: events, live: graph.live, webrtc: p.webrtc,
            media: MediaCatalog(
                library: g.library, data: g.data, longestFileS: RecordingBin.longestFileS(config) + 60,
                channels: g.channelNames),
            reporter: p.webReporter, accounts: p.accounts, onvif: onvif, logger: logger,
            otherChannels: g.channels.map(\.liveChannel))
        plan.add(
            .frontEnds,
            contentsOf: try await stoppingGraphOnFailure(graph) { try frontEnds.flatMap { try $0(context) } })
        plan.add(
            .network,
            contentsOf: p.network.services(
                config: config, device: onvif, events: events, logger: logger, accounts: p.accounts,
                speaker: p.speaker, perform: perform))
        plan.add(.commandGate, p.gate)
        for channel in g.channels {
            for (stage, service) in channel.services(
                events: events, health: g.health, logger: logger, stallAfter: p.liveness.stallAfter)
            {
                plan.add(stage, service)
            }
            plan.add(
                .picture,
                contentsOf: await channel.detectionServices(
                    activity: p.activity, events: events, logger: logger, perform: perform))
        }
        addDevices(to: &plan, p, serviceManager: serviceManager)
        return plan
    }

    /// What watches the graph, the encoder, the cameras and the storage (their stages: `ServiceStage`).
    private static func addWatchers(to plan: inout ServicePlan, _ p: ApplianceParts) {
        let g = p.base
        let (config, events, logger, graph) = (g.config, g.events, g.logger, g.graph)
        plan.add(
            .graphWatch,
            GraphWatcher(
                graph: graph, events: events, health: g.health, logger: logger, cameras: g.cameras,
                recorder: p.recorder))
        plan.add(.liveness, p.liveness)
        // A channel that stores its camera's stream as sent has no encoder to replace.
        if let chain = graph.encoderChain {
            plan.add(
                .encoderFailover,
                EncoderFailover(
                    selection: g.encoders, graph: graph, chain: chain, recorder: p.recorder, events: events,
                    logger: logger, stallAfter: p.liveness.stallAfter))
        }
        plan.add(
            .cameraWatch,
            CameraWatch(monitor: p.devices, cameras: [g.cameras] + g.channels.map(\.cameras), events: events))
        let (data, library, thumbnail, started, backup) = (g.data, g.library, config.thumbnail, g.recovery, g.backup)
        plan.add(
            .storageWatch,
            StorageWatch(
                health: g.health, events: events, logger: logger,
                clipsFound: { ids in
                    for id in ids { await backup?.recordingFinished(id) }
                }
            ) {
                try await Recovery.reconcile(
                    after: started, data: data, library: library, thumbnail: thumbnail, logger: logger)
            })
    }

    /// The shutters, the recording light, the speaker's feedback and the service manager's notifier.
    private static func addDevices(to plan: inout ServicePlan, _ p: ApplianceParts, serviceManager: ServiceManager?) {
        let g = p.base
        let (config, events, logger, perform) = (g.config, g.events, g.logger, p.dispatcher.perform)
        plan.add(
            .inputs,
            p.inputs.map {
                InputService(inputs: config.inputs, board: $0, events: events, logger: logger, perform: perform)
            })
        plan.add(
            .lights,
            p.lights.map {
                RecordingLight(
                    outputs: config.outputs, board: $0, events: events, minFreeMb: config.storage.minFreeMb,
                    logger: logger,
                    perform: perform)
            })
        if config.speaker.feedback, p.speaker != nil {
            plan.add(.lights, SpeakerFeedback(events: events, logger: logger, perform: perform))
        }
        plan.add(
            .serviceManager,
            serviceManager.map {
                SystemdNotifier(
                    manager: $0, readiness: g.readiness, liveness: p.liveness, events: events, logger: logger,
                    perform: perform)
            })
    }
}
