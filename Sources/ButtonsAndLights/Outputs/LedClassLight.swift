import Foundation
import Glibc
import SystemCalls

/// An LED-class device (/sys/class/leds/NAME, or any folder with a `brightness` file): on writes
/// `max_brightness` (read from the folder once, 1 when it has none), off writes 0.
struct LedClassLight: Light {
    package let folder: String
    let maxBrightness: Int
    package var device: String { folder }

    /// `led`: a name under /sys/class/leds, or a folder's path.
    package static func folder(_ led: String) -> String { led.contains("/") ? led : "/sys/class/leds/" + led }

    package init(led: String) throws(LightError) {
        folder = Self.folder(led)
        guard FileManager.default.fileExists(atPath: folder + "/brightness") else {
            throw LightError(
                FileManager.default.fileExists(atPath: folder)
                    ? "\(folder) has no brightness file (not an LED-class device)" : "no LED \(folder)")
        }
        let text = (try? String(contentsOfFile: folder + "/max_brightness", encoding: .utf8)) ?? ""
        maxBrightness = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0 > 0 ? $0 : nil } ?? 1
    }

    package func set(_ on: Bool) throws(LightError) {
        let path = folder + "/brightness"
        let fd: Int32
        do throws(SystemCallError) {
            fd = try SystemCall.run("open \(path)") { Glibc.open(path, O_WRONLY | O_TRUNC | O_CLOEXEC) }
        } catch {
            throw LightError("cannot open \(path): \(error.reason)")
        }
        defer { Glibc.close(fd) }
        let text = "\(on ? maxBrightness : 0)\n"
        let written: Int
        do throws(SystemCallError) {
            written = try SystemCall.run("write \(path)") { text.withCString { Glibc.write(fd, $0, strlen($0)) } }
        } catch {
            throw LightError("cannot write \(path): \(error.reason)")
        }
        guard written == text.utf8.count else { throw LightError("cannot write \(path): short write") }
    }

    package func close() {}
}
