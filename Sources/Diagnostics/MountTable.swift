import ApplianceBase
import Foundation

/// /proc/self/mountinfo: which mount holds a path, its type and source (the mounts of this process's namespace).
struct MountTable: Sendable {
    struct Mount: Equatable, Sendable {
        var mountPoint: String
        var type: String
        var source: String
    }

    var mounts: [Mount]

    static func current() -> MountTable {
        MountTable(parse((try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)) ?? ""))
    }

    init(_ mounts: [Mount]) { self.mounts = mounts }

    /// Lines such as `36 35 98:0 / /mnt/data rw,noatime master:1 - ext4 /dev/sda1 rw,errors=continue`: the mount
    /// point is field 5, the type and source follow the " - " separator. Octal escapes (\040 for a space) decoded.
    static func parse(_ text: String) -> [Mount] {
        text.split(separator: "\n").compactMap { line in
            let parts = line.components(separatedBy: " - ")
            guard parts.count >= 2 else { return nil }
            let before = parts[0].split(separator: " ")
            let after = parts[1].split(separator: " ")
            guard before.count >= 5, after.count >= 2 else { return nil }
            return Mount(
                mountPoint: unescape(String(before[4])), type: String(after[0]), source: unescape(String(after[1])))
        }
    }

    /// The mount a path lives on: the last-mounted one whose mount point is the longest prefix of the path.
    func mount(containing path: String) -> Mount? {
        var best: Mount?
        for mount in mounts {
            let point = mount.mountPoint
            let contains = point == "/" || path == point || path.hasPrefix(point.hasSuffix("/") ? point : point + "/")
            if contains, point.count >= (best?.mountPoint.count ?? -1) { best = mount }
        }
        return best
    }

    static func unescape(_ text: String) -> String {
        guard text.contains("\\") else { return text }
        var bytes: [UInt8] = []
        let utf8 = Array(text.utf8)
        var i = 0
        while i < utf8.count {
            if utf8[i] == UInt8(ascii: "\\"), i + 3 < utf8.count,
                let value = UInt8(String(decoding: utf8[(i + 1)...(i + 3)], as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                i += 4
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
