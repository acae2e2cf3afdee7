import ApplianceBase
import Foundation
import TestSupport

/// A real evdev input device made through the kernel's uinput driver (in the VM lab): it has a name, a node under
/// /dev/input, can be grabbed, and disappears like an unplugged USB keyboard when destroyed. The kernel stamps
/// each event as it is written, so gestures are timed by when the test writes them.
final class UInputDevice {
    // <linux/uinput.h> and <linux/input.h>: _IOW('U', 100, int), _IOW('U', 101, int), _IO('U', 1), _IO('U', 2).
    static let setEventBit: UInt = 0x4004_5564, setKeyBit: UInt = 0x4004_5565
    static let create: UInt = 0x5501, destroyRequest: UInt = 0x5502
    /// _IOW('E', 0x90, int)
    static let grab: UInt = 0x4004_4590
    static let evKey: UInt16 = 1, evSyn: UInt16 = 0

    let name: String
    private var fd: Int32

    init(name: String, keys: [UInt16]) throws {
        self.name = name
        fd = open("/dev/uinput", O_WRONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw DaemonError(message: "cannot open /dev/uinput: \(String(cString: strerror(errno)))")
        }
        guard ioctl(fd, Self.setEventBit, CInt(Self.evKey)) == 0,
            keys.allSatisfy({ ioctl(fd, Self.setKeyBit, CInt($0)) == 0 })
        else {
            close(fd)
            throw DaemonError(message: "uinput: cannot set the key bits: \(String(cString: strerror(errno)))")
        }
        // struct uinput_user_dev: name[80], struct input_id (bustype, vendor, product, version), ff_effects_max,
        // absmax/absmin/absfuzz/absflat[64]: 1116 bytes.
        var setup = Data(count: 1116)
        setup.replaceSubrange(0..<min(79, name.utf8.count), with: Array(name.utf8.prefix(79)))
        for (offset, value) in [(80, UInt16(0x03)), (82, UInt16(0x1209)), (84, UInt16(0x0001)), (86, UInt16(1))] {
            withUnsafeBytes(of: value.littleEndian) { setup.replaceSubrange(offset..<(offset + 2), with: $0) }
        }
        let written = setup.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == setup.count, ioctl(fd, Self.create) == 0 else {
            close(fd)
            throw DaemonError(message: "uinput: cannot create '\(name)': \(String(cString: strerror(errno)))")
        }
    }

    deinit { unplug() }

    /// The device's event node, once the kernel has made it (/sys/class/input/eventN/device/name).
    func node(timeout: TimeInterval = 10) -> String? {
        var found: String?
        Poll.until(timeout: timeout, every: 0.1) {
            let root = "/sys/class/input"
            for entry in ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).sorted()
            where entry.hasPrefix("event") {
                let named = (try? String(contentsOfFile: "\(root)/\(entry)/device/name", encoding: .utf8))?
                    .trimmingCharacters(in: .whitespacesAndNewlines)
                if named == name, FileManager.default.fileExists(atPath: "/dev/input/\(entry)") {
                    found = "/dev/input/\(entry)"
                }
            }
            return found != nil
        }
        return found
    }

    /// A key going down (1) or up (0), with its SYN_REPORT.
    func key(_ code: UInt16, _ value: Int32) {
        var data = Data()
        for (type, code, value) in [(Self.evKey, code, value), (Self.evSyn, UInt16(0), Int32(0))] {
            data += Data(count: 16)  // the time: the kernel stamps the event itself
            withUnsafeBytes(of: type.littleEndian) { data.append(contentsOf: $0) }
            withUnsafeBytes(of: code.littleEndian) { data.append(contentsOf: $0) }
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        _ = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Down, held for `seconds`, up.
    func press(_ code: UInt16, holding seconds: TimeInterval = 0.08) {
        key(code, 1)
        Thread.sleep(forTimeInterval: seconds)  // the subject: the key held down this long
        key(code, 0)
    }

    /// Removes the device, as unplugging it would.
    func unplug() {
        guard fd >= 0 else { return }
        _ = ioctl(fd, Self.destroyRequest)
        close(fd)
        fd = -1
    }
}
