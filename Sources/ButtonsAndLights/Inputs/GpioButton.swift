import CLinuxInput
import Foundation
import Glibc
import Settings
import SystemCalls

/// A `[[input]] kind = "gpio"` button: one line of a GPIO chip requested as an input with both edges, the bias, the
/// kernel applying active_low (so a rising edge is always a press) and `debounce_ms` as the kernel's debounce
/// attribute. A kernel that refuses debounce gets the line without it and the reader debounces in software.
///
/// Test stand-in: when `chip` is a FIFO, the line events are read from it as they would be from the line request
/// (the same 48-byte records, decoded by the same code), debounced in software since a pipe has none.
package struct GpioButton: ButtonDevice {
    package let config: ApplianceConfig.Input
    /// Shown to other tools (gpioinfo) as the line's user.
    static let consumer = "appliance"
    /// What a kernel that will not debounce this line answers (524 is the kernel's own ENOTSUPP).
    static let debounceRefused: Set<Int32> = [EINVAL, EOPNOTSUPP, 524]

    package init(config: ApplianceConfig.Input) { self.config = config }

    package var description: String { "\(config.chip) line \(config.line)" }

    /// What software debouncing takes when the kernel does not: `debounce_ms`, or none at 0.
    private var softwareDebounce: Duration? { config.debounceMs > 0 ? .milliseconds(config.debounceMs) : nil }

    package func open() throws(ButtonOpenError) -> any OpenButton {
        if Self.isFifo(config.chip) { return try openStandIn() }
        let chip = try GpioChip.find(config.chip)
        let offset = try chip.offset(ofLine: config.line)
        var flags: UInt64 = GpioFlags.input | GpioFlags.edgeRising
        flags |= GpioFlags.edgeFalling
        flags |= GpioFlags.bias(config.bias)
        if config.activeLow { flags |= GpioFlags.activeLow }
        let debounceUs = UInt32(config.debounceMs * 1000)
        let request = { (debounceUs: UInt32) throws(SystemCallError) in
            try SystemCall.run("GPIO_V2_GET_LINE") {
                appl_gpio_request_line(chip.fd, offset, Self.consumer, flags, debounceUs)
            }
        }
        let fd: Int32
        var inSoftware = false
        do throws(SystemCallError) {
            do throws(SystemCallError) {
                fd = try request(debounceUs)
            } catch  where debounceUs > 0 && Self.debounceRefused.contains(error.code) {
                (fd, inSoftware) = (try request(0), true)
            }
        } catch {
            throw chip.requestError(offset: offset, error)
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return GpioLineEvents(
            fd: fd, offset: offset, softwareDebounce: inSoftware ? softwareDebounce : nil,
            note: inSoftware ? "the kernel offers no debounce on this line: debounced in software" : nil)
    }

    /// The FIFO stand-in: the line must be an offset (a pipe has no line names).
    private func openStandIn() throws(ButtonOpenError) -> any OpenButton {
        guard let offset = UInt32(config.line) else {
            throw .failed("\(config.chip) is a FIFO stand-in: line must be an offset, not a name ('\(config.line)')")
        }
        let fd: Int32
        do throws(SystemCallError) {
            fd = try SystemCall.run("open \(config.chip)") {
                Glibc.open(config.chip, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            }
        } catch {
            if error.code == ENOENT { throw .missing("no GPIO chip \(config.chip)") }
            throw .failed("cannot open \(config.chip): \(error.reason)")
        }
        return GpioLineEvents(
            fd: fd, offset: offset, softwareDebounce: softwareDebounce,
            note: "stand-in: line events read from a FIFO, not a GPIO chip (debounced in software)")
    }

    static func isFifo(_ path: String) -> Bool {
        var info = stat()
        return path.contains("/") && stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO
    }
}

/// A requested GPIO line (or its FIFO stand-in): `gpio_v2_line_event` records come out of `fd`.
final class GpioLineEvents: OpenButton {
    package let fd: Int32
    package let recordSize = GpioLineEventDecoder.recordSize
    package let softwareDebounce: Duration?
    package let note: String?
    package let grabbed: Bool? = nil
    private let decoder: GpioLineEventDecoder
    private var closed = false

    package init(fd: Int32, offset: UInt32, softwareDebounce: Duration?, note: String?) {
        (self.fd, self.softwareDebounce, self.note) = (fd, softwareDebounce, note)
        decoder = GpioLineEventDecoder(offset: offset)
    }

    deinit { close() }

    package func edge(from record: UnsafeRawBufferPointer) -> ButtonEdge? { decoder.edge(from: record) }

    func afterBatch() {}

    /// Releases the line (closing the request's descriptor is how the kernel's uAPI frees it).
    package func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }
}
