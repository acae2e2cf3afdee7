import ApplianceApp
import ArgumentParser
import Diagnostics
import Encoders
import Foundation

/// `appliance doctor`: checks the device before it is trusted (cameras, microphone, permissions, storage, clock,
/// encoders, backup server) and prints one PASS/WARN/FAIL line per check with the fix. Exits 1 on any failure.
/// Safe beside a running daemon: it takes no lock and writes only a probe file it removes.
struct DoctorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "doctor",
        abstract: "Check cameras, microphone, permissions, storage, clock, encoders and backup; exit 1 on any failure.")

    @Option(name: .long, help: "Config file (TOML). Default: the embedded Config/appliance.toml.")
    var config: String?

    @Option(name: .long, help: "Data directory (overrides data_dir).")
    var dataDir: String?

    @Flag(
        name: .long, help: "Print one JSON object: {checks: [{name, status, detail, fix}], passed, warnings, failed}.")
    var json = false

    func run() async throws {
        let report = await Doctor.run(
            configPath: config, dataDir: dataDir, encoderTrials: SubprocessEncoderTrials.ofThisProgram)
        print(json ? report.json() : report.text)
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }
}
