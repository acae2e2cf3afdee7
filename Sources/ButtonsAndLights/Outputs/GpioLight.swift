import CLinuxInput
import Glibc
import Settings
import Synchronization
import SystemCalls

/// A GPIO line driving a light: requested as an output (the kernel applying active_low, so 1 is always "lit"),
/// held for as long as the daemon runs, set with GPIO_V2_LINE_SET_VALUES.
final class GpioLight: Light {
    package let device: String
    private let fd: Int32
    private let closed = Atomic(false)

    package init(output: ApplianceConfig.Output) throws(LightError) {
        let chip: GpioChip
        let offset: UInt32
        do {
            chip = try GpioChip.find(output.chip)
            offset = try chip.offset(ofLine: output.line)
        } catch {
            switch error {
            case .missing(let why), .failed(let why): throw LightError(why)
            }
        }
        let flags: UInt64 = output.activeLow ? GpioFlags.output | GpioFlags.activeLow : GpioFlags.output
        do throws(SystemCallError) {
            fd = try SystemCall.run("GPIO_V2_GET_LINE") {
                appl_gpio_request_output(chip.fd, offset, GpioButton.consumer, flags, 0)
            }
        } catch {
            switch chip.requestError(offset: offset, error) {
            case .missing(let why), .failed(let why): throw LightError(why)
            }
        }
        device = "\(chip.path) line \(offset)"
    }

    package func set(_ on: Bool) throws(LightError) {
        do throws(SystemCallError) {
            try SystemCall.run("GPIO_V2_LINE_SET_VALUES") { appl_gpio_set_values(fd, on ? 1 : 0, 1) }
        } catch {
            throw LightError("cannot set \(device): \(error.reason)")
        }
    }

    /// Releases the line; the kernel leaves an output as it was last set, so shutdown switches it off first.
    package func close() {
        if !closed.exchange(true, ordering: .relaxed) { Glibc.close(fd) }
    }

    deinit { close() }
}
