import ApplianceApp
import ApplianceProtocol
import ArgumentParser
import Foundation

struct Cameras: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List configured cameras, or find ONVIF cameras on the network.",
        subcommands: [CamerasList.self, CamerasDiscover.self], defaultSubcommand: CamerasList.self)
}

struct CamerasList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List configured cameras and the capture devices present.")
    @OptionGroup var options: CtlOptions

    func run() {
        options.perform(.cameras) { (r: CamerasReport) in
            // The channel column only where there are several.
            let channels = Set(r.cameras.compactMap(\.channel)).count > 1
            let cameras = r.cameras.map { c in
                (channels ? [c.channel ?? "-"] : []) + [
                    c.name, c.source, c.device ?? "-", c.state + (c.alwaysOn ? " (always on)" : ""), c.mode ?? "-",
                    [c.detail, c.modeReason, lateness(c)].compactMap { $0 }.joined(separator: "; "),
                ]
            }
            let header = (channels ? ["CHANNEL"] : []) + ["CAMERA", "SOURCE", "DEVICE", "STATE", "MODE", "DETAIL"]
            var text = table(header: header, rows: cameras)
            text +=
                r.devices.isEmpty
                ? "\nno capture devices found"
                : "\n\n"
                    + table(
                        header: ["DEVICE", "CLASS", "PATH"],
                        rows: r.devices.map {
                            [$0.name, $0.deviceClass, $0.path ?? "-"]
                        })
            return text
        }
    }
}

struct CamerasDiscover: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "discover",
        abstract: "Find ONVIF cameras answering WS-Discovery and, with a camera account, their stream addresses.",
        discussion:
            "The password is read from --password-file's first line, or from standard input when --user is given.")
    @OptionGroup var options: CtlOptions
    @Option(name: .long, help: "A camera account to ask each camera for its streams.") var user: String?
    @Option(name: .long, help: "Read the camera account's password from this file's first line (else standard input).")
    var passwordFile: String?
    @Option(name: .long, help: "How long to listen for answers, in seconds (0.5 to 30).") var seconds: Double =
        CameraDiscoveryRequest.defaultSeconds

    func validate() throws {
        if passwordFile != nil, user == nil { throw ValidationError("--password-file needs --user") }
    }

    func run() {
        let password = user.map {
            PasswordInput.read(file: passwordFile, prompt: "Password for \($0) on the cameras: ")
        }
        options.perform(.discoverCameras(CameraDiscoveryRequest(username: user, password: password, seconds: seconds)))
        { (r: CameraDiscovery) in
            guard !r.cameras.isEmpty else {
                return
                    """
                    no ONVIF camera answered within \(seconds) s (probed from \
                    \(r.interfaces.isEmpty ? "no interface" : r.interfaces.joined(separator: ", ")))
                    """
            }
            return r.cameras.map(describe).joined(separator: "\n\n")
        }
    }

    private func describe(_ camera: DiscoveredCamera) -> String {
        var lines = ["\(camera.name ?? "camera")\(camera.hardware.map { " (\($0))" } ?? "")  \(camera.address)"]
        if let error = camera.error { lines.append("  streams: \(error)") }
        for stream in camera.streams {
            let size = stream.width.flatMap { w in stream.height.map { "\(w)x\($0)" } }
            lines.append(
                "  \(stream.profile): \(stream.uri)"
                    + ([stream.encoding, size].compactMap { $0 }.isEmpty
                        ? ""
                        : " (\([stream.encoding, size].compactMap { $0 }.joined(separator: " ")))"))
        }
        if user == nil { lines.append("  (give --user to ask for its stream addresses)") }
        return lines.joined(separator: "\n")
    }
}

/// "12 of 3400 frames repeated (camera late)" when the camera has fallen behind its rate at all.
private func lateness(_ camera: CameraReport) -> String? {
    guard let repeated = camera.framesRepeated, repeated > 0 else { return nil }
    return "\(repeated) of \(camera.framesIn ?? 0) frames repeated (camera late)"
}

struct Switch: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Switch the active camera (also while recording).")
    @OptionGroup var options: CtlOptions
    @Argument(help: "Camera name.") var camera: String?
    @Flag(name: .long, help: "Switch to the next usable camera.") var next = false
    @Option(name: .long, help: "With --next: the channel whose camera changes (default: the first).")
    var channel: String?

    func validate() throws {
        guard (camera != nil) != next else { throw ValidationError("give a camera name or --next") }
        guard channel == nil || next else {
            throw ValidationError("--channel goes with --next (a camera's name says its channel)")
        }
    }

    func run() {
        options.perform(.switchCamera(camera.map { .named($0) } ?? .next(channel: channel))) { (r: SwitchResult) in
            r.switched
                ? """
                active camera: \(r.active ?? "") (was \
                \(r.previous ?? "none")\(r.latencyMs.map { String(format: ", %.0f ms", $0) } ?? ""))
                """
                : "active camera: \(r.active ?? "") (unchanged)"
        }
    }
}
