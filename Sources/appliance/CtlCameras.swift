import ApplianceCore
import ArgumentParser
import Foundation

struct Cameras: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List configured cameras and the capture devices present.")
    @OptionGroup var options: CtlOptions

    func run() {
        options.call("cameras") { r in
            let cameras = (r["cameras"] as? [[String: Any]] ?? []).map { c -> [String] in
                [c["name"] as? String ?? "", c["source"] as? String ?? "", c["device"] as? String ?? "-",
                 (c["state"] as? String ?? "") + ((c["always_on"] as? Bool) == true ? " (always on)" : ""),
                 c["detail"] as? String ?? ""]
            }
            var text = table(header: ["CAMERA", "SOURCE", "DEVICE", "STATE", "DETAIL"], rows: cameras)
            let devices = r["devices"] as? [[String: Any]] ?? []
            text += devices.isEmpty ? "\nno capture devices found" : "\n\n" + table(header: ["DEVICE", "CLASS", "PATH"], rows: devices.map {
                [$0["name"] as? String ?? "", $0["device_class"] as? String ?? "", $0["path"] as? String ?? "-"]
            })
            return text
        }
    }
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
        options.call("switch", args: camera.map { ["camera": $0] } ?? ["next": true]) { r in
            (r["switched"] as? Bool) == true
                ? "active camera: \(r["active"] ?? "") (was \(r["previous"] as? String ?? "none")\((r["latency_ms"] as? Double).map { String(format: ", %.0f ms", $0) } ?? ""))"
                : "active camera: \(r["active"] ?? "") (unchanged)"
        }
    }
}
