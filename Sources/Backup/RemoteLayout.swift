import ApplianceProtocol
import Foundation

/// Where a recording goes on the server: `<url>/YYYY/MM/DD/<title-safe-name>_<id>.mp4` (+ .jpg, .json).
struct RemoteLayout: Sendable, Equatable {
    package var folder: String
    package var name: String

    package init(recording: Recording) {
        let c = Calendar.current.dateComponents([.year, .month, .day], from: recording.createdAt)
        folder = String(format: "%04d/%02d/%02d", c.year!, c.month!, c.day!)
        name = "\(Self.safe(recording.title))_\(recording.id)"
    }

    /// Rebuilds the layout from a stored media path ("2026/11/21/name_id.mp4").
    package init?(mediaPath: String) {
        guard mediaPath.hasSuffix(".mp4") else { return nil }
        folder = (mediaPath as NSString).deletingLastPathComponent
        name = ((mediaPath as NSString).lastPathComponent as NSString).deletingPathExtension
    }

    package var media: String { "\(folder)/\(name).mp4" }
    package var thumbnail: String { "\(folder)/\(name).jpg" }
    package var sidecar: String { "\(folder)/\(name).json" }
    /// Uploads go here first and are renamed into place, so a final name never holds a partial file.
    package static func temporary(_ path: String) -> String {
        ((path as NSString).deletingLastPathComponent) + "/." + (path as NSString).lastPathComponent + ".part"
    }

    /// Letters and digits (accents folded to ASCII), '-' for the rest, at most 48 characters; "clip" if empty.
    package static func safe(_ title: String) -> String {
        let folded =
            title.applyingTransform(.toLatin, reverse: false)?.applyingTransform(.stripDiacritics, reverse: false)
            ?? title
        var result = ""
        for scalar in folded.unicodeScalars {
            if scalar.isASCII, CharacterSet.alphanumerics.contains(scalar) {
                result.unicodeScalars.append(scalar)
            } else if !result.hasSuffix("-") {
                result += "-"
            }
        }
        let trimmed = String(result.trimmingCharacters(in: CharacterSet(charactersIn: "-")).prefix(48))
            .trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return trimmed.isEmpty ? "clip" : trimmed
    }
}
