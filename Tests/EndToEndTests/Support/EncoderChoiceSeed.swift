import Foundation
import Synchronization

/// The encoder choice a test daemon made by trial, given to the next test daemons with the same `[video]` table as
/// their `<data_dir>/encoder-choice.json`: what a device finds on every start after its first. The daemon checks
/// the file's key itself (boot, GStreamer, the candidates' plugins and fragments, the video settings) and runs the
/// trial again when anything differs, so a seed can only save the trial, never change the choice. The trial took
/// 1.1 s of each of about 200 daemon starts in make test, and 10 to 20 s of each start in the lab's VM.
/// A test of the trial itself sets `DaemonProcess.seedsEncoderChoice = false`.
enum EncoderChoiceSeed {
    private static let seeds = Mutex([String: Data]())

    /// Before a start: the seed for this config's video, unless the data dir has a choice of its own.
    static func plant(config: String, dataDir: String) {
        let file = dataDir + "/encoder-choice.json"
        guard !FileManager.default.fileExists(atPath: file),
            let seed = seeds.withLock({ $0[videoTable(config)] })
        else { return }
        try? FileManager.default.createDirectory(atPath: dataDir, withIntermediateDirectories: true)
        FileManager.default.createFile(atPath: file, contents: seed)
    }

    /// After a start whose choice came from a trial: keep it for the next daemons with this video.
    static func keep(config: String, dataDir: String) {
        guard let choice = FileManager.default.contents(atPath: dataDir + "/encoder-choice.json") else { return }
        seeds.withLock { $0[videoTable(config)] = choice }
    }

    /// The `[video]` table's lines (empty when the config has none): what the choice's video key is made of.
    static func videoTable(_ config: String) -> String {
        var inVideo = false
        var lines: [Substring] = []
        for line in config.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("[") { inVideo = trimmed == "[video]" }
            if inVideo { lines.append(line) }
        }
        return lines.joined(separator: "\n")
    }
}
