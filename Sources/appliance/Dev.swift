import ApplianceCore
import ApplianceProtocol
import ArgumentParser
import Foundation

/// Developer tools, hidden from help: used by the benchmark.
struct Dev: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Developer tools (benchmarks).", shouldDisplay: false, subcommands: [Seed.self])

    /// Fills a data dir with synthetic recordings: real rows through the Library, and an empty placeholder file
    /// for each, so start-up recovery finds nothing to do.
    struct Seed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create synthetic recordings in a data dir.")
        @Option(name: .long) var dataDir: String
        @Option(name: .long) var rows = 100_000

        func run() async throws {
            let data = try DataDirectory(path: dataDir)
            let library = try Library(path: data.root + "/appliance.sqlite")
            let start = Date(timeIntervalSinceNow: -Double(rows) * 60)
            var batch: [Recording] = []
            for index in 0..<rows {
                let id = UUID().uuidString.lowercased()
                let created = start.addingTimeInterval(Double(index) * 60)
                let path = data.finalPath(id: id, date: created)
                var row = Recording(id: id, title: "Synthetic clip \(index) — garden, dusk", createdAt: created, path: path, state: .complete)
                row.startedAt = created
                row.endedAt = created.addingTimeInterval(30)
                row.durationMs = 30_000
                row.sizeBytes = 15_000_000
                row.width = 1280
                row.height = 720
                row.framerate = 30
                row.videoCodec = "h264"
                row.audioCodec = "aac"
                row.audioPresent = true
                row.camera = "main"
                row.thumbnail = data.thumbnailPath(id: id)
                let folder = (path as NSString).deletingLastPathComponent
                if !FileManager.default.fileExists(atPath: folder) {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                }
                _ = FileManager.default.createFile(atPath: path, contents: nil)
                batch.append(row)
                if batch.count == 5000 {
                    try await library.insertBatch(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            try await library.insertBatch(batch)
            print("seeded \(rows) recordings in \(data.root); database \(library.sizeBytes) bytes")
        }
    }
}
