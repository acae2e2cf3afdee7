import ApplianceApp
import ApplianceWeb
import ArgumentParser
import Encoders
import Engine
import Foundation
import Logging
import Settings
import Supervision
import SystemCalls

/// `appliance run`: builds the appliance (data folder, recovery, live graph, services) and runs it until
/// SIGTERM/SIGINT, finalising any recording before it exits.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the daemon.")

    @Option(name: .long, help: "Config file (TOML). Default: the embedded Config/appliance.toml.")
    var config: String?

    @Option(name: .long, help: "Data directory (overrides data_dir).")
    var dataDir: String?

    @Option(name: .long, help: "Control socket path (overrides socket).")
    var socket: String?

    func run() async throws {
        LinuxQueries.tuneMalloc()
        // Read (and cleared from the environment) before anything can start a child process.
        let (serviceManager, environmentProblems) = ServiceManager.fromEnvironment()
        var settings: ApplianceConfig
        do {
            settings = try ConfigLoader.load(path: config)
        } catch {
            fail("config: \(error)")
        }
        if let dataDir { settings.dataDir = dataDir }
        if let socket { settings.socket = socket }

        let logLevel = Logger.Level(rawValue: settings.logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        let logger = Logger(label: "appliance")
        for problem in environmentProblems { logger.warning("systemd: \(problem)") }
        for key in settings.inactiveSettings {
            logger.warning("config: \(key) is set but not active in this version; it has no effect yet")
        }
        let appliance: Appliance
        do {
            appliance = try await Appliance.start(
                config: settings, logger: logger, serviceManager: serviceManager,
                frontEnds: [WebDashboard.frontEnd], encoderTrials: SubprocessEncoderTrials.ofThisProgram)
        } catch {
            serviceManager?.socket.send("STATUS=failed to start: \(error)")
            fail("\(error)")
        }
        do {
            try await appliance.run()
        } catch {
            fail("\(error)")
        }
    }
}

/// Prints a one-line error and exits non-zero.
func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("appliance: \(message)\n".utf8))
    exit(code)
}
