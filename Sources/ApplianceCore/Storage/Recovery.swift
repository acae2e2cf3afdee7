import Foundation
import GStreamerKit
import Logging

/// Start-up recovery: every partial file left by a crash is measured, given a thumbnail and moved into
/// recordings/. Nothing is deleted; a file that cannot be decoded is still moved, with an error in the log.
public enum Recovery {
    public struct Recovered: Sendable, Codable {
        public var id: String
        public var path: String
        public var thumbnail: String?
        public var durationMs: Int?
        public var error: String?
    }

    public static func run(data: DataDirectory, thumbnail: ApplianceConfig.Thumbnail, logger: Logger) -> [Recovered] {
        var recovered: [Recovered] = []
        for partial in data.partialFiles() {
            let id = ((partial as NSString).lastPathComponent as NSString).deletingPathExtension
            let attributes = try? FileManager.default.attributesOfItem(atPath: partial)
            let date = (attributes?[.creationDate] as? Date) ?? (attributes?[.modificationDate] as? Date) ?? Date()
            var item = Recovered(id: id, path: data.finalPath(id: id, date: date))
            do {
                let report = try MediaInspector.inspect(path: partial, offset: ClockTime(seconds: thumbnail.offsetS))
                item.durationMs = report.durationMs
                if let frame = report.frame {
                    let path = data.thumbnailPath(id: id)
                    try frame.writeJPEG(to: path, maxWidth: thumbnail.maxWidth, maxHeight: thumbnail.maxHeight, quality: thumbnail.quality)
                    item.thumbnail = path
                }
            } catch {
                item.error = "\(error)"
            }
            do {
                try data.commit(partial, to: item.path)
            } catch {
                item.error = "\(error)"
                item.path = partial
            }
            if let error = item.error {
                logger.error("recovered \(partial) with problems: \(error)")
            } else {
                logger.notice("recovered interrupted recording", metadata: [
                    "id": "\(id)", "path": "\(item.path)", "duration_ms": "\(item.durationMs.map(String.init) ?? "?")",
                ])
            }
            recovered.append(item)
        }
        return recovered
    }
}
