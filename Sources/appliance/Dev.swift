import ApplianceApp
import ApplianceBase
import ApplianceProtocol
import ArgumentParser
import Foundation
import MediaLibrary

/// Developer tools, hidden from help: used by the benchmark.
struct Dev: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Developer tools (benchmarks).", shouldDisplay: false, subcommands: [Seed.self])

    /// Fills a data dir with synthetic recordings: real rows through the Library, and for each an empty placeholder
    /// file (start-up recovery finds nothing to do) or, with `--media`, a hard link to one real finished MP4 (a
    /// day of playable segments without a day of disk).
    struct Seed: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create synthetic recordings in a data dir.")
        @Option(name: .long) var dataDir: String
        @Option(name: .long) var rows = 100_000
        /// Above 0: one loop recording of `rows` segments this long, back to back up to now (a gap of 30 segments
        /// every 2,880), instead of 30 s clips a minute apart.
        @Option(name: .long) var segmentS = 0
        /// Activity rows spread evenly over the seeded time (motion, sound and marks in turn).
        @Option(name: .long) var events = 0
        /// A finished MP4 that every seeded file is a hard link to (it should last `--segment-s`).
        @Option(name: .long) var media: String?
        /// Scrubbing previews (a pack a recording wrote) that every seeded file's previews are a hard link to.
        @Option(name: .long) var scrub: String?
        /// When the seeded time ends (ISO 8601); now by default.
        @Option(name: .long) var end: String?

        func run() async throws {
            let data = try DataDirectory(path: dataDir)
            let library = try Library(path: data.root + "/appliance.sqlite")
            let step = segmentS > 0 ? Double(segmentS) : 60
            guard end == nil || end.flatMap(Timestamps.date(iso:)) != nil else {
                throw ValidationError("--end must be an ISO 8601 moment")
            }
            let until = end.flatMap(Timestamps.date(iso:)) ?? Date()
            let start = until.addingTimeInterval(-Double(rows + (segmentS > 0 ? rows / 2880 * 30 : 0)) * step)
            let mediaSize = try media.map { try FileManager.default.attributesOfItem(atPath: $0)[.size] as? Int64 ?? 0 }
            let group = UUID().uuidString.lowercased()
            var batch: [Recording] = []
            for index in 0..<rows {
                let id = UUID().uuidString.lowercased()
                let created = start.addingTimeInterval(Double(index + (segmentS > 0 ? index / 2880 * 30 : 0)) * step)
                let path = data.finalPath(id: id, date: created)
                var row = Recording(
                    id: id, title: "Synthetic clip \(index) — garden, dusk", createdAt: created, path: path,
                    state: .complete)
                row.startedAt = created
                row.endedAt = created.addingTimeInterval(segmentS > 0 ? step : 30)
                row.durationMs = segmentS > 0 ? segmentS * 1000 : 30_000
                if segmentS > 0 { (row.group, row.segment) = (group, index + 1) }
                row.sizeBytes = mediaSize ?? 15_000_000
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
                if let scrub { try FileManager.default.linkItem(atPath: scrub, toPath: data.scrubPath(id: id)) }
                if let media {
                    try FileManager.default.linkItem(atPath: media, toPath: path)
                } else {
                    _ = FileManager.default.createFile(atPath: path, contents: nil)
                }
                batch.append(row)
                if batch.count == 5000 {
                    try await library.insertBatch(batch)
                    batch.removeAll(keepingCapacity: true)
                }
            }
            try await library.insertBatch(batch)
            let kinds: [Activity.Kind] = [.motion, .sound, .external]
            let span = until.timeIntervalSince(start)
            for n in 0..<events {
                let at = start.addingTimeInterval(span * (Double(n) + 0.5) / Double(events))
                _ = try await library.insertActivity(
                    Activity(
                        id: 0, kind: kinds[n % 3], label: n % 3 == 2 ? "mark \(n)" : nil, camera: "main",
                        startedAt: at, endedAt: at.addingTimeInterval(4), peak: n % 3 == 1 ? -20 : 0.05))
            }
            print(
                """
                seeded \(rows) recordings and \(events) activities in \(data.root); database \(library.sizeBytes) \
                bytes
                """
            )
        }
    }
}
