import Foundation
import Glibc

/// An LED-class device (/sys/class/leds/NAME, or any folder with a `brightness` file): on writes
/// `max_brightness` (read from the folder once, 1 when it has none), off writes 0.
struct LedClassLight: Light {
    let folder: String
    let maxBrightness: Int
    var device: String { folder }

    /// `led`: a name under /sys/class/leds, or a folder's path.
    static func folder(_ led: String) -> String { led.contains("/") ? led : "/sys/class/leds/" + led }

    init(led: String) throws(LightError) {
        folder = Self.folder(led)
        guard FileManager.default.fileExists(atPath: folder + "/brightness") else {
            throw LightError(FileManager.default.fileExists(atPath: folder)
                ? "\(folder) has no brightness file (not an LED-class device)" : "no LED \(folder)")
        }
        let text = (try? String(contentsOfFile: folder + "/max_brightness", encoding: .utf8)) ?? ""
        maxBrightness = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0 > 0 ? $0 : nil } ?? 1
    }

    func set(_ on: Bool) throws(LightError) {
        let path = folder + "/brightness"
        let fd = Glibc.open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { throw LightError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { Glibc.close(fd) }
        let text = "\(on ? maxBrightness : 0)\n"
        let written = text.withCString { Glibc.write(fd, $0, strlen($0)) }
        guard written == text.utf8.count else {
            throw LightError("cannot write \(path): \(written < 0 ? String(cString: strerror(errno)) : "short write")")
        }
    }

    func close() {}
}
