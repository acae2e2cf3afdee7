import Foundation
import TestSupport

/// A private PulseAudio server on its own socket, started by a test: GStreamer's pulse device provider reports its
/// sources to the daemon's device monitor, and loading or unloading a null sink (whose monitor is an Audio/Source)
/// is a real hot-plug as the monitor sees it — the nearest thing to plugging in a USB microphone on a machine
/// without devices.
final class PulseAudioServer {
    let directory: String
    var socket: String { directory + "/native" }
    var serverAddress: String { "unix:" + socket }

    init() throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("pulse-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: "/usr/bin/pulseaudio") }

    /// Runs pulseaudio as a daemon of its own (it forks; the test keeps no child process waiting on it) and waits
    /// until its socket answers.
    func start() throws {
        let launched = try ProcessOutcome.run(
            "/usr/bin/pulseaudio",
            [
                "-n", "--daemonize=yes", "--exit-idle-time=-1", "--log-target=file:\(directory)/log",
                "--load=module-native-protocol-unix socket=\(socket) auth-anonymous=1",
            ], environment: environment, timeout: 20)
        guard launched.status == 0 else { throw DaemonError(message: "pulseaudio did not start: \(launched.stderr)") }
        if Poll.until(timeout: 15, every: 0.1, { (try? pactl(["info"]))?.status == 0 }) { return }
        throw DaemonError(message: "pulseaudio did not answer on \(socket)")
    }

    private var environment: [String: String] {
        ["HOME": directory, "XDG_RUNTIME_DIR": directory, "PATH": "/usr/bin:/bin"]
    }

    func stop() {
        _ = try? ProcessOutcome.run("/usr/bin/pulseaudio", ["--kill"], environment: environment, timeout: 10)
    }

    /// "Plugs in" an audio source named `Monitor of <description>`; returns the module index to unplug it.
    func plugSource(description: String) throws -> String {
        let result = try pactl([
            "load-module", "module-null-sink", "sink_name=\(description.lowercased())",
            "sink_properties=device.description=\(description)",
        ])
        guard result.status == 0 else { throw DaemonError(message: "pactl load-module: \(result.stderr)") }
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func unplug(_ module: String) throws {
        let result = try pactl(["unload-module", module])
        guard result.status == 0 else { throw DaemonError(message: "pactl unload-module: \(result.stderr)") }
    }

    private func pactl(_ arguments: [String]) throws -> ProcessOutcome {
        try ProcessOutcome.run("/usr/bin/pactl", ["--server", serverAddress] + arguments, timeout: 10)
    }
}
