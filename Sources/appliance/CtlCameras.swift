import ApplianceCore
import ApplianceProtocol
import ArgumentParser
import Foundation

struct Cameras: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List configured cameras and the capture devices present.")
    @OptionGroup var options: CtlOptions

    func run() {
        options.perform(.cameras) { (r: CamerasReport) in
            let cameras = r.cameras.map { c in
                [c.name, c.source, c.device ?? "-", c.state + (c.alwaysOn ? " (always on)" : ""), c.mode ?? "-",
                 [c.detail, c.modeReason, lateness(c)].compactMap { $0 }.joined(separator: "; ")]
            }
            var text = table(header: ["CAMERA", "SOURCE", "DEVICE", "STATE", "MODE", "DETAIL"], rows: cameras)
            text += r.devices.isEmpty ? "\nno capture devices found" : "\n\n" + table(header: ["DEVICE", "CLASS", "PATH"], rows: r.devices.map {
                [$0.name, $0.deviceClass, $0.path ?? "-"]
            })
            return text
        }
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

    func validate() throws {
        guard (camera != nil) != next else { throw ValidationError("give a camera name or --next") }
    }

    func run() {
        options.perform(.switchCamera(camera.map { .named($0) } ?? .next)) { (r: SwitchResult) in
            r.switched
                ? "active camera: \(r.active ?? "") (was \(r.previous ?? "none")\(r.latencyMs.map { String(format: ", %.0f ms", $0) } ?? ""))"
                : "active camera: \(r.active ?? "") (unchanged)"
        }
    }
}
