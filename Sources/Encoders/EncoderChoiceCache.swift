import ApplianceProtocol
import Foundation
import GStreamerKit
import Settings

/// The last choice, in `<data_dir>/encoder-choice.json`, valid while nothing it depended on changed: the boot (a
/// driver loaded, a module unloaded), the GStreamer version and the candidates' plugins (file, version, rank) and
/// fragments, and the video settings the trials ran with.
package struct EncoderChoiceCache {
    package struct Key: Codable, Equatable {
        var boot: String
        var gstreamer: String
        /// Per candidate: its fragment's SHA-256 and its factories' plugin file, version and rank.
        var candidates: [String]
        var video: String
    }

    package struct Entry: Codable {
        var key: Key
        var choice: EncoderChoice
    }

    package let path: String

    package init(dataDir: String) { path = dataDir + "/encoder-choice.json" }

    package static func key(
        candidates: [EncoderCandidate], video: ApplianceConfig.Video,
        bootIDFile: String = "/proc/sys/kernel/random/boot_id"
    ) -> Key {
        let boot =
            (try? String(contentsOfFile: bootIDFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
            ?? ""
        let described = candidates.map { candidate in
            let fragment = Checksum.hash(.sha256, candidate.fragment.utf8).map { String(format: "%02x", $0) }.joined()
                .prefix(16)
            let factories = candidate.factories.keys.sorted().map { name in
                candidate.factories[name].flatMap { $0 }.map {
                    "\(name)@\($0.pluginFile):\($0.pluginVersion):\($0.rank)"
                } ?? "\(name)@absent"
            }
            return "\(candidate.name) \(fragment) \(factories.joined(separator: " "))"
        }
        let v = video
        return Key(
            boot: boot, gstreamer: GStreamer.version, candidates: described,
            video:
                """
                \(v.width)x\(v.height)@\(v.framerate) \(v.bitrateKbps) kbit/s key \(v.keyframeIntervalS) s \
                \(v.speedPreset)
                """
        )
    }

    package func load(matching key: Key) -> EncoderChoice? {
        guard let data = FileManager.default.contents(atPath: path),
            let entry = try? JSONDecoder().decode(Entry.self, from: data),
            entry.key == key
        else { return nil }
        return entry.choice
    }

    /// Writes atomically (a half-written file is never read as a choice).
    package func store(_ choice: EncoderChoice, key: Key) {
        guard let data = try? JSONEncoder().encode(Entry(key: key, choice: choice)) else { return }
        try? data.write(to: URL(fileURLWithPath: path), options: .atomic)
    }
}
