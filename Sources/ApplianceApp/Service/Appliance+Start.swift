import ApplianceBase
import ApplianceProtocol
import Backup
import Encoders
import Engine
import Foundation
import FrontEndInterface
import GStreamerKit
import Logging
import MediaLibrary
import ObjectDetection
import ServiceLifecycle
import Settings
import Supervision

extension Appliance {
    /// Builds the appliance, in order: the data folder (locked before anything reads it), the library, the live
    /// graph; then start-up recovery and, at the same time, the graph's start with its first camera (they share
    /// nothing: no recording can start before the socket is served); backup; then the domains and the services.
    /// Every failure is one line naming what is wrong; whatever was started is stopped again.
    /// `serviceManager`: systemd's notify socket and watchdog (`ServiceManager.fromEnvironment()`), when started by it.
    /// `frontEnds`: services built outside ApplianceApp (the web dashboard), given the entry point and events.
    /// `encoderTrials`: how `[video] encoder = "auto"` tries its candidates (the daemon: in child processes).
    public static func start(
        config: ApplianceConfig, logger: Logger, handleSignals: Bool = true,
        serviceManager: ServiceManager? = nil, frontEnds: [FrontEnd] = [],
        encoderTrials: any EncoderTrialRunner = InProcessEncoderTrials()
    ) async throws -> Appliance {
        let started = ContinuousClock.now
        GStreamer.initialize()  // once, before recovery and the graph use it from two threads
        let views = config.channelViews
        let (data, folderLock, library, runs) = try await openDataFolder(
            config: views[0], logger: logger, serviceManager: serviceManager)
        let (config, encoders) = try await chooseEncoder(
            config: views[0], data: data, trials: encoderTrials, logger: logger)
        try admitChannels(views, first: encoders)
        let events = EventHub()
        let clock = await ClockWatch.reconciled(library: library, events: events, logger: logger)
        let sharedSound = SharedSound()
        let (graph, cameras, recovery) = try await startCapture(
            config: config, data: data, library: library, events: events, sharedSound: sharedSound,
            logger: logger)
        // The storage is judged by the reconcile, in the background (StorageWatch); until then it is taken as there.
        let health = Health(
            storage: StorageStatus(state: .ok, recordingsDir: data.recordingsDir), recovery: recovery.report,
            reconciled: false)
        let backup = try await stoppingGraphOnFailure(graph, "backup: ") {
            try await startBackup(config: config, library: library, data: data, events: events, logger: logger)
        }
        let readiness = makeReadiness(started: started, events: events, logger: logger)
        graph.firstFrame.whenFired { _ in readiness.markFirstFrame() }

        let channels = try await stoppingGraphOnFailure(graph) {
            try await startChannels(
                views.dropFirst(), firstEncoder: encoders, data: data, library: library, events: events,
                health: health, archive: backup, sharedSound: sharedSound, logger: logger)
        }
        let groundwork = Groundwork(
            config: config, data: data, library: library, runs: runs, events: events, clock: clock,
            encoders: encoders, graph: graph, cameras: cameras, channels: channels, recovery: recovery, health: health,
            backup: backup, readiness: readiness, started: started, logger: logger)
        let (parts, plan) = try await stoppingChannelsOnFailure(channels) {
            let parts = try await assemble(groundwork, serviceManager: serviceManager)
            return (parts, try await servicePlan(parts, frontEnds: frontEnds, serviceManager: serviceManager))
        }
        let deadline = ShutdownDeadline(logger: logger)
        return Appliance(
            config: config, data: data, events: events, readiness: readiness, socketPath: parts.socketPath,
            graph: graph, channels: channels,
            dispatcher: parts.dispatcher,
            group: makeGroup(plan.ordered, deadline: deadline, handleSignals: handleSignals, logger: logger),
            serviceOrder: plan.ordered.map { String(describing: type(of: $0)) }, folderLock: folderLock,
            library: library, webrtc: parts.webrtc, deadline: deadline, logger: logger)
    }

    /// The data folder (locked before anything reads it) and its library, with this run recorded; after a crash
    /// loop under a service manager, a pause before the devices are opened again.
    private static func openDataFolder(config: ApplianceConfig, logger: Logger, serviceManager: ServiceManager?)
        async throws
        -> (DataDirectory, DataFolderLock, Library, DaemonRuns)
    {
        let data = try step("") { try DataDirectory(path: config.dataDir) }
        let folderLock = try step("") { try DataFolderLock(dataDir: data.root) }
        let library = try step("") { try Library(path: data.root + "/appliance.sqlite") }
        let runs: DaemonRuns
        do {
            runs = try await library.beginRun()
        } catch {
            throw StartupError(description: "cannot write to the database: \(error)")
        }
        if runs.consecutiveUnclean > 0 {
            logger.warning(
                """
                the last run on this data folder did not stop cleanly (\(runs.consecutiveUnclean) in a row, \
                \(runs.uncleanExits) in all); recovery checks its files
                """
            )
        }
        // Only a service manager restarts by itself; whoever restarts the daemon by hand needs no pacing.
        if let serviceManager, let delay = RestartBackoff.delay(for: runs) {
            let why =
                """
                \(runs.consecutiveUnclean) unclean exits in a row: waiting \(delay.components.seconds) s before \
                opening the devices
                """
            logger.warning("crash loop: \(why)")
            serviceManager.socket.send("STATUS=crash loop: \(why)")
            try? await Task.sleep(for: delay)
        }
        return (data, folderLock, library, runs)
    }

    /// The live graph, built, then started with its first camera while start-up recovery runs (they share nothing:
    /// no recording can start before the socket is served). On failure the graph is stopped again.
    private static func startCapture(
        config: ApplianceConfig, data: DataDirectory, library: Library, events: EventHub, sharedSound: SharedSound,
        logger: Logger
    ) async throws -> (CaptureGraph, CameraSwitcher, Recovery.Started) {
        // The graph is built first: building creates elements (and loads their plugins) and must not overlap the
        // recovery's inspection pipelines (once it did: "no such element 'input-selector'"). Starting it may.
        let graph = try step("cannot start the capture graph: ") {
            try CaptureGraph(
                config: config, fragments: try FragmentLibrary.locate(configured: config.pipelinesDir),
                sharedSound: sharedSound, logger: logger)
        }
        async let recovered = Recovery.start(data: data, library: library, thumbnail: config.thumbnail, logger: logger)
        do {
            try await blocking { try graph.start() }
        } catch {
            _ = try? await recovered
            throw StartupError(description: "cannot start the capture graph: \(error)")
        }
        logger.info(
            "live graph running",
            metadata: [
                "cameras":
                    "\(graph.cameraNames.map { "\($0)=\(graph.cameraKinds[$0] ?? "?")" }.joined(separator: ","))",
                "audio": "\(graph.audioKind)", "preview": "\(graph.previewKind)", "encoder": "\(config.video.encoder)",
                "size": "\(config.video.width)x\(config.video.height)@\(config.video.framerate)",
            ])
        let cameras = CameraSwitcher(graph: graph, events: events, logger: logger)
        await cameras.startInitial()
        let recovery: Recovery.Started
        do {
            recovery = try await recovered
        } catch {
            _ = try? await blocking { graph.stop() }
            throw StartupError(description: "start-up recovery failed: \(error)")
        }
        let r = recovery.report
        logger.info(
            "library ready; its rows are checked against the files in the background",
            metadata: [
                "recordings": "\(library.count)", "recovered": "\(r.recovered.count)", "empty": "\(r.empty.count)",
                "recovery_ms": "\(String(format: "%.1f", r.durationMs))",
            ])
        return (graph, cameras, recovery)
    }

    /// Starts the WebDAV backup uploader when `[backup] url` is set.
    private static func startBackup(
        config: ApplianceConfig, library: Library, data: DataDirectory, events: EventHub,
        logger: Logger
    ) async throws -> BackupUploader? {
        guard config.backup.enabled else { return nil }
        let uploader = try BackupUploader(
            config: config.backup, library: library, data: data, events: events, logger: logger)
        do {
            try await uploader.prepare()
        } catch {
            await uploader.close()
            throw error
        }
        logger.info(
            """
            backup to \
            \(BackupPolicy.redacted(config.backup.url))\(config.backup.onlyLocked ? " (locked clips only)" : "")
            """
        )
        return uploader
    }

    /// The services that follow the first channel's live picture and sound: the preview's overlay text, the scrubbing
    /// frames, sound detection, and its detectors with their activity and its trigger (`detectionServices`).
    static func pictureServices(
        graph: CaptureGraph, cameras: CameraSwitcher, config: ApplianceConfig, events: EventHub,
        logger: Logger, activity: ActivityLog, channels: [String],
        perform: @escaping @Sendable (Command) async throws(ApplianceError) -> CommandResult
    ) async -> [any Service] {
        var services: [any Service] = []
        let camera = await cameras.activeName
        if let overlay = graph.previewOverlay {
            services.append(PreviewOverlay(element: overlay, events: events, camera: camera))
        }
        if let scrub = graph.scrub { services.append(ScrubWriter(scrub: scrub, logger: logger)) }
        if config.sound.enabled, let tap = graph.sound {
            services.append(SoundService(tap: tap, settings: config.sound.settings, events: events, logger: logger))
        }
        let scope = ChannelScope.first(of: channels, cameras: graph.cameraNames)
        return services
            + detectionServices(
                graph: graph, config: config, events: events, logger: logger, activity: activity, camera: camera,
                scope: scope, perform: perform)
    }

    /// One channel's motion and object detection on its picture, the activity they make, and recording on its events
    /// (`[recording] trigger`, or its table's): `scope` says whose events and recordings they are.
    static func detectionServices(
        graph: CaptureGraph, config: ApplianceConfig, events: EventHub, logger: Logger, activity: ActivityLog,
        camera: String?, scope: ChannelScope,
        perform: @escaping @Sendable (Command) async throws(ApplianceError) -> CommandResult
    ) -> [any Service] {
        var services: [any Service] = [ActivityService(log: activity, events: events, scope: scope, logger: logger)]
        if let tap = graph.motion {
            services.append(
                MotionService(
                    tap: tap, settings: config.motion.settings, events: events, camera: camera,
                    pictures: activity.pictures, scope: scope, logger: logger))
        }
        if let objects = objectService(
            graph: graph, config: config, events: events, camera: camera, pictures: activity.pictures, scope: scope,
            logger: logger)
        {
            services.append(objects)
        }
        let r = config.recording
        if r.trigger != "manual" {
            services.append(
                EventRecordingService(
                    trigger: EventTrigger(trigger: r.trigger, postRecordS: r.postRecordS, eventGapS: r.eventGapS),
                    events: events, scope: scope, logger: logger, perform: perform))
        }
        return services
    }

    /// Object detection when `[objects] enabled`: a detector that cannot be made is one error line, and the appliance
    /// runs on motion alone (the objects branch takes no frame).
    private static func objectService(
        graph: CaptureGraph, config: ApplianceConfig, events: EventHub, camera: String?,
        pictures: ActivityPictures, scope: ChannelScope, logger: Logger
    ) -> ObjectService? {
        guard let tap = graph.objects, let motion = graph.motion else { return nil }
        let areas = config.objects.zones.compactMap { name in config.motion.zones.first { $0.name == name }?.area }
        let config = config.objects
        do {
            let detector = try ObjectDetectors.make(config)
            return ObjectService(
                tap: tap, motion: motion, detector: detector, tracker: ObjectDetectors.tracker(config),
                track: config.track,
                zones: ObjectZones(areas), events: events, camera: camera, pictures: pictures, scope: scope,
                logger: logger)
        } catch {
            logger.error("objects: \(error); running on motion alone")
            tap.turnOff()
            return nil
        }
    }

    /// The readiness that logs and announces `ready` with the time since `started`, once the socket is bound and the
    /// first frame has passed.
    private static func makeReadiness(started: ContinuousClock.Instant, events: EventHub, logger: Logger) -> Readiness {
        Readiness(onReady: {
            let ms = (ContinuousClock.now - started) / .milliseconds(1)
            logger.info("ready", metadata: ["startup_ms": "\(String(format: "%.0f", ms))"])
            events.publish(.ready(Ready(startupMs: (ms * 10).rounded() / 10)))
        })
    }

    /// The one ServiceGroup, its services tracked by the shutdown deadline (a stop ends within 10 s, whatever a
    /// device does).
    private static func makeGroup(
        _ services: [any Service], deadline: ShutdownDeadline, handleSignals: Bool, logger: Logger
    ) -> ServiceGroup {
        ServiceGroup(
            configuration: .init(
                services: deadline.track(services).map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
                gracefulShutdownSignals: handleSignals ? [.sigterm, .sigint] : [],
                logger: logger))
    }

    /// Runs a start-up step that comes after the graph started: on failure the graph is stopped and the error becomes
    /// a one-line `StartupError` with `prefix`.
    static func stoppingGraphOnFailure<T>(
        _ graph: CaptureGraph, _ prefix: String = "",
        _ body: () async throws -> T
    ) async throws -> T {
        do {
            return try await body()
        } catch {
            _ = try? await blocking { graph.stop() }
            throw StartupError(description: prefix + "\(error)")
        }
    }

    /// Runs one start-up step; its error becomes a one-line `StartupError` with `prefix`.
    private static func step<T>(_ prefix: String, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw StartupError(description: prefix + "\(error)")
        }
    }
}
