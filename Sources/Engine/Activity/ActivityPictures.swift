import ApplianceBase
import ApplianceProtocol
import Foundation
import GStreamerKit

/// The picture of an activity: the live frame at hand, as a small JPEG under `activity/`, named by kind and start so
/// the detector can write it (and write it again at a better moment) before the activity has a number. A channel
/// after the first has its own (its picture; its name in the file's, as two channels' motion may start together).
package struct ActivityPictures: Sendable {
    package let data: DataDirectory
    package let latestFrame: @Sendable () -> Sample?
    package let channel: String?

    package init(data: DataDirectory, latestFrame: @escaping @Sendable () -> Sample?, channel: String? = nil) {
        self.data = data
        self.latestFrame = latestFrame
        self.channel = channel
    }
    package static let width = 320

    /// Writes the latest frame for the activity of `kind` that started at `startedAt`; nil when there is no frame
    /// yet or it could not be written. The file is replaced whole (a reader never sees half a picture).
    /// An object's picture (`label`) is named by its label too (two objects may start together) and shows `box`.
    package func capture(kind: Activity.Kind, label: String? = nil, startedAt: Date, box: ObjectBox? = nil) async
        -> String?
    {
        guard let frame = latestFrame() else { return nil }
        let name = label.map { "\(kind.rawValue)-\(Self.fileSafe($0))" } ?? kind.rawValue
        let path = data.activityPicturePath(kind: inChannel(name), startedAt: startedAt)
        let corners = box.map { [Float($0.x), Float($0.y), Float($0.width), Float($0.height)] }
        do {
            try await blocking {
                let partial = path + ".partial"
                _ = try frame.writeJPEG(
                    to: partial, maxWidth: Self.width, maxHeight: Self.width, quality: 80, box: corners)
                guard rename(partial, path) == 0 else {
                    throw DataDirectory.StorageError(description: "cannot rename \(partial)")
                }
            }
            return path
        } catch {
            return nil
        }
    }

    /// A label as part of a file name: letters and digits kept, anything else `_`.
    static func fileSafe(_ label: String) -> String {
        String(label.prefix(32).map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" })
    }

    /// The kind's part of a file name, with the channel's name after the first channel.
    private func inChannel(_ name: String) -> String { channel.map { "\(name)@\(Self.fileSafe($0))" } ?? name }

    /// The picture written for that activity, if any.
    func existing(kind: Activity.Kind, startedAt: Date) -> String? {
        let path = data.activityPicturePath(kind: inChannel(kind.rawValue), startedAt: startedAt)
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
}
