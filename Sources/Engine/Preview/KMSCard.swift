import Foundation

/// The DRM card a KMS preview drives: the first /dev/dri/cardN that has display connectors (a render-only GPU
/// has none), named as kmssink's `driver-name` wants it — the kernel DRM driver's own name (DRM_IOCTL_VERSION),
/// which may differ from its device driver's (vc4 vs vc4-drm). Without it kmssink tries a built-in list of
/// drivers that misses some (virtio_gpu: "Could not open DRM module (NULL)", found in the VM lab).
package enum KMSCard {
    /// `driver-name=NAME` for the previews' `${kms_card}` placeholder, or "" (kmssink's own search) if no card is
    /// found.
    package static func sinkOptions(sysfs: String = "/sys/class/drm", dev: String = "/dev/dri") -> String {
        driverName(sysfs: sysfs, dev: dev).map { "driver-name=\($0)" } ?? ""
    }

    package static func driverName(sysfs: String = "/sys/class/drm", dev: String = "/dev/dri") -> String? {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: sysfs)) ?? []
        let cards = entries.filter { $0.range(of: #"^card[0-9]+$"#, options: .regularExpression) != nil }
            .sorted { (Int($0.dropFirst(4)) ?? 0) < (Int($1.dropFirst(4)) ?? 0) }
        for card in cards where entries.contains(where: { $0.hasPrefix(card + "-") }) {
            if let name = version(of: "\(dev)/\(card)") { return name }
        }
        return nil
    }

    /// struct drm_version (64 bytes on 64-bit Linux): three ints, then name_len/name, date_len/date, desc_len/desc.
    /// DRM_IOCTL_VERSION = _IOWR('d', 0x00, struct drm_version).
    package static func version(of node: String) -> String? {
        let fd = open(node, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var name = [CChar](repeating: 0, count: 64)
        var record = [UInt8](repeating: 0, count: 64)
        return name.withUnsafeMutableBufferPointer { nameBuffer -> String? in
            record.withUnsafeMutableBytes { raw -> String? in
                raw.storeBytes(of: nameBuffer.count - 1, toByteOffset: 16, as: Int.self)
                raw.storeBytes(of: UInt(bitPattern: nameBuffer.baseAddress), toByteOffset: 24, as: UInt.self)
                guard ioctl(fd, 0xC040_6400, raw.baseAddress!) == 0 else { return nil }
                let length = min(raw.load(fromByteOffset: 16, as: Int.self), nameBuffer.count - 1)
                let bytes = UnsafeRawBufferPointer(start: nameBuffer.baseAddress, count: max(0, length))
                let text = String(decoding: bytes, as: UTF8.self)
                return text.isEmpty ? nil : text
            }
        }
    }
}
