import Foundation
import Settings

/// Check 1: where the config came from, and what it asks for. A config that does not load is the only failure
/// doctor reports then: every other check would judge a config the daemon would refuse.
enum ConfigCheck {
    static let name = "config"

    static func loaded(_ config: ApplianceConfig, path: String?) -> DoctorCheck {
        let origin = path.map { "loaded \($0)" } ?? "embedded Config/appliance.toml (no --config given)"
        let v = config.video
        let cameras = "\(config.cameras.count) camera\(config.cameras.count == 1 ? "" : "s")"
        let video = "\(v.encoder) \(v.width)x\(v.height)@\(v.framerate) \(v.bitrateKbps) kbit/s"
        let backup = config.backup.enabled ? "on" : "off"
        let summary = "\(cameras), \(video), audio \(config.audio.source), backup \(backup)"
        let inactive = config.inactiveSettings
        guard inactive.isEmpty else {
            return .warn(
                name, "\(origin) (\(summary)); set but not active in this version: \(inactive.joined(separator: ", "))",
                fix: "remove \(inactive.joined(separator: ", ")) from the config, or leave it for a later version")
        }
        return .pass(name, "\(origin) (\(summary))")
    }

    static func failed(_ error: any Error, path: String?) -> DoctorCheck {
        guard let error = error as? ConfigError else {
            return .fail(name, "\(error)", fix: "correct the config file \(path ?? "")")
        }
        let place = error.line.map { "\(error.file) line \($0)" } ?? error.file
        let fix = error.key.isEmpty ? "correct \(place)" : "correct \(error.key) in \(place)"
        return .fail(name, error.description, fix: fix)
    }
}
