import CLinuxInput
import Foundation
import Settings
import SystemCalls

/// A key on a Linux input device (`[[input]] kind = "evdev"`): a USB keyboard, a presenter remote, a foot pedal.
///
/// Opened by path (`device`, preferably /dev/input/by-id/…, which survives re-plugging into another port) or by
/// the device's name (`name`, matched against EVIOCGNAME of each /dev/input/event*). A FIFO or a plain file works
/// too: every ioctl then fails with ENOTTY, which is noted and otherwise tolerated, and the records are read as
/// they come — that is how tests feed it.
struct EvdevButton: ButtonDevice {
    package let path: String
    package let name: String
    package let keyCode: UInt16
    package let grab: Bool

    package init(config: ApplianceConfig.Input) {
        (path, name, keyCode, grab) = (config.device, config.deviceName, config.keyCode, config.grab)
    }

    package var description: String { path.isEmpty ? "name \"\(name)\"" : path }

    package func open() throws(ButtonOpenError) -> any OpenButton {
        let (fd, opened) = try path.isEmpty ? Self.find(name: name) : (Self.openNode(path), path)
        return OpenEvdev(fd: fd, path: opened, keyCode: keyCode, grab: grab)
    }

    private static func openNode(_ path: String) throws(ButtonOpenError) -> Int32 {
        do throws(SystemCallError) {
            return try SystemCall.run("open \(path)") { Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        } catch {
            switch error.code {
            case ENOENT, ENODEV, ENXIO, ENOTDIR: throw .missing("\(path) not present")
            case EACCES, EPERM: throw .failed("\(path): permission denied (the daemon's user needs the input group)")
            default: throw .failed("\(path): \(error.reason)")
            }
        }
    }

    /// The first /dev/input/event* (in number order) whose name is `name`.
    private static func find(name: String) throws(ButtonOpenError) -> (Int32, String) {
        let nodes = ((try? FileManager.default.contentsOfDirectory(atPath: "/dev/input")) ?? [])
            .filter { $0.hasPrefix("event") }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
        var unreadable = 0
        for node in nodes {
            let path = "/dev/input/" + node
            let fd = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            if fd < 0 {
                unreadable += 1
                continue
            }
            var buffer = [CChar](repeating: 0, count: 256)
            if appl_evdev_name(fd, &buffer, UInt32(buffer.count - 1)) >= 0,
                buffer.withUnsafeBufferPointer({ String(cString: $0.baseAddress!) }) == name
            {
                return (fd, path)
            }
            Glibc.close(fd)
        }
        let note =
            unreadable > 0
            ? " (\(unreadable) of \(nodes.count) devices could not be opened: the daemon's user needs the input group)"
            : ""
        throw .missing("no input device named \"\(name)\"\(note)")
    }
}

/// An opened evdev device. Used by its reader thread only.
final class OpenEvdev: OpenButton {
    package let fd: Int32
    package let path: String
    package let recordSize = InputEventDecoder.recordSize
    package let softwareDebounce: Duration? = nil
    private(set) var note: String?
    private(set) var grabbed: Bool?
    private var decoder: InputEventDecoder
    /// A grab was asked for while a key was held: it is taken after the batch that leaves no key held.
    private var grabPending = false

    package init(fd: Int32, path: String, keyCode: UInt16, grab: Bool) {
        (self.fd, self.path) = (fd, path)
        decoder = InputEventDecoder(keyCode: keyCode)
        // Event times on the monotonic clock: the wall clock jumps at boot (NTP, an RTC-less board), which would
        // stretch or shrink a gesture measured across the jump. On a FIFO this fails (ENOTTY): times are as written.
        _ = appl_evdev_set_clock(fd, CLOCK_MONOTONIC)
        guard grab else { return }
        grabbed = false
        var bits = [UInt8](repeating: 0, count: Int(appl_evdev_key_bitmap_size()))
        do throws(SystemCallError) {
            try SystemCall.run("EVIOCGKEY") { appl_evdev_keys_held(fd, &bits, UInt32(bits.count)) }
        } catch {
            note = Self.grabFailure(error)
            return
        }
        decoder.setHeld(bitmap: bits)
        // Grabbing while a key is down leaves that key stuck down for everyone else (its release never reaches
        // them): wait until a release leaves none held.
        if decoder.held.isEmpty {
            takeGrab()
        } else {
            grabPending = true
            note = "grab waits until no key is held"
        }
    }

    package func edge(from record: UnsafeRawBufferPointer) -> ButtonEdge? { decoder.edge(record) }

    package func time(of record: UnsafeRawBufferPointer) -> UInt64? { InputEventDecoder.event(record)?.time }

    func afterBatch() {
        if grabPending, decoder.held.isEmpty { takeGrab() }
    }

    package func close() { Glibc.close(fd) }

    private func takeGrab() {
        grabPending = false
        do throws(SystemCallError) {
            try SystemCall.run("EVIOCGRAB") { appl_evdev_grab(fd, 1) }
            (grabbed, note) = (true, nil)
        } catch {
            (grabbed, note) = (false, Self.grabFailure(error))
        }
    }

    private static func grabFailure(_ error: SystemCallError) -> String {
        switch error.code {
        case ENOTTY, EINVAL: "grab not possible: not an input device"
        case EBUSY: "grab not possible: another program holds the device"
        default: "grab failed: \(error.reason)"
        }
    }
}
