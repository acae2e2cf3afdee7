import ApplianceCore
import ArgumentParser
import CApplianceShim
import Foundation
import Logging
import ServiceLifecycle

/// `appliance run`: builds the live graph, recovers interrupted recordings and serves the control socket
/// until SIGTERM/SIGINT, finalising any recording before it exits.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the daemon.")

    @Option(name: .long, help: "Config file (TOML). Default: the embedded Config/appliance.toml.")
    var config: String?

    @Option(name: .long, help: "Data directory (overrides data_dir).")
    var dataDir: String?

    @Option(name: .long, help: "Control socket path (overrides socket).")
    var socket: String?

    func run() async throws {
        appl_tune_malloc()
        var settings: ApplianceConfig
        do {
            settings = try ConfigLoader.load(path: config)
        } catch {
            fail("config: \(error)")
        }
        if let dataDir { settings.dataDir = dataDir }
        if let socket { settings.socket = socket }

        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = Logger.Level(rawValue: settings.logLevel) ?? .info
            return handler
        }
        let logger = Logger(label: "appliance")
        for key in settings.inactiveSettings {
            logger.warning("config: \(key) is set but not active in this version; it has no effect yet")
        }

        let data: DataDirectory
        do {
            data = try DataDirectory(path: settings.dataDir)
        } catch {
            fail("\(error)")
        }
        let socketPath = settings.socket.isEmpty ? data.root + "/ctl.sock" : settings.socket

        let library: Library
        do {
            library = try Library(path: data.root + "/appliance.sqlite")
        } catch {
            fail("\(error)")
        }
        let recovery: Recovery.Report
        do {
            recovery = try await Recovery.run(data: data, library: library, thumbnail: settings.thumbnail, logger: logger)
        } catch {
            fail("start-up recovery failed: \(error)")
        }
        logger.info("library ready", metadata: [
            "recordings": "\(library.count)", "recovered": "\(recovery.recovered.count)", "failed": "\(recovery.failed.count)",
            "adopted": "\(recovery.adopted.count)", "recovery_ms": "\(String(format: "%.1f", recovery.durationMs))",
        ])

        let events = EventHub()
        let controller: Controller
        do {
            controller = try Controller(config: settings, data: data, library: library, events: events, logger: logger)
        } catch {
            fail("cannot start the capture graph: \(error)")
        }
        await controller.setRecoveryReport(recovery)
        await controller.start()
        do {
            try await controller.startBackup()
        } catch {
            await controller.shutdown()
            fail("backup: \(error)")
        }
        let server = ControlServer(path: socketPath, router: CommandRouter(controller: controller), events: events, logger: logger)
        let group = ServiceGroup(configuration: .init(
            services: [
                .init(service: ControllerService(controller: controller)),
                .init(service: server),
            ],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        do {
            try await group.run()
        } catch {
            await controller.shutdown()
            fail("\(error)")
        }
        logger.info("stopped")
    }
}

/// Keeps the controller for the daemon's lifetime; on graceful shutdown finalises the recording and stops the graph.
struct ControllerService: Service {
    let controller: Controller

    func run() async throws {
        try? await gracefulShutdown()
        await controller.shutdown()
    }
}

/// Prints a one-line error and exits non-zero.
func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("appliance: \(message)\n".utf8))
    exit(code)
}
