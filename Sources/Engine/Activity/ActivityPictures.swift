import ApplianceProtocol
import Foundation
import GStreamerKit
import ApplianceBase

/// The picture of an activity: the live frame at hand, as a small JPEG under `activity/`, named by kind and start so
/// the detector can write it (and write it again at a better moment) before the activity has a number.
package struct ActivityPictures: Sendable {
    package let data: DataDirectory
    package let latestFrame: @Sendable () -> Sample?

    package init(data: DataDirectory, latestFrame: @escaping @Sendable () -> Sample?) {
        self.data = data
        self.latestFrame = latestFrame
    }
    package static let width = 320

    /// Writes the latest frame for the activity of `kind` that started at `startedAt`; nil when there is no frame
    /// yet or it could not be written. The file is replaced whole (a reader never sees half a picture).
    package func capture(kind: Activity.Kind, startedAt: Date) async -> String? {
        guard let frame = latestFrame() else { return nil }
        let path = data.activityPicturePath(kind: kind.rawValue, startedAt: startedAt)
        do {
            try await blocking {
                let partial = path + ".partial"
                _ = try frame.writeJPEG(to: partial, maxWidth: Self.width, maxHeight: Self.width, quality: 80)
                guard rename(partial, path) == 0 else { throw DataDirectory.StorageError(description: "cannot rename \(partial)") }
            }
            return path
        } catch {
            return nil
        }
    }

    /// The picture written for that activity, if any.
    func existing(kind: Activity.Kind, startedAt: Date) -> String? {
        let path = data.activityPicturePath(kind: kind.rawValue, startedAt: startedAt)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}
